"""Card-play agents and what they search with: PIMC (`pimc`), αμ (`alphamu`, `pareto`), the best-defence reference
(`best_defence`), the combined defender (`combined_defender`, compiled in `_cd_search`), world sampling under the
auction (`auction_worlds`) and simulation reweighing (`simulation`). The agents are exported from `bridgerl.agents`."""
