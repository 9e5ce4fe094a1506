"""Card-play agents and what they search with: PIMC (`pimc`), αμ (`alphamu`, `pareto`), the best-defence reference
(`best_defence`), the combined defender (`combined_defender`, compiled in `_cd_search`), world sampling under the
auction (`auction_worlds`), simulation reweighing (`simulation`) and the search on top of the learned card player
(`card_search`). The agents are exported from `bridgerl.agents`."""
