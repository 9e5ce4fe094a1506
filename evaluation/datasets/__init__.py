"""The data commands' engines: played-tricks tables (`bridgerl data played`) and DD-labelled positions
(`bridgerl data positions`), both playing boards through `bridgerl.arena`."""
