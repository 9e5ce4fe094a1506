"""Card-play evaluations: DD trick loss per decision, play studies (best defence, αμ, inference of card locations)."""
