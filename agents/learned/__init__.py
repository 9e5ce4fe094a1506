"""Learned agents and their plumbing: the networks (`networks`), checkpoints (`checkpoint`), the DQN and PPO bidders
(`dqn`), decision-time search over a critic (`search`) and card-location inference (`card_location`). The bidders
are exported from `bridgerl.agents` (loaded on first use: JAX)."""
