"""Bidding agents of rules: the natural systems (`rules`: constructive and competitive; `sayc`), their agreements
(`agreements`: the readings of calls that the world samplers use; `sayc_agreements`: sayc's table) and the
baselines (`baselines`, `silent`). The bidders are exported from `bridgerl.agents`."""
