"""Gymnasium card-play env ``bridgerl/CardPlay-v0`` (thesis 2.1.5) over `bridgerl.core.play`.

The agent plays declarer's and dummy's cards; the defenders are another play agent (``act(view) -> card``).
Observation: `play_encoding` (571 bits, `docs/play.md`); action: a card index 0-51; ``info`` holds
``action_mask`` (int8[52]), ``seat`` (the seat whose card is due) and ``view`` (a `PlayerView`).
Reward at the end only: declarer's tricks, 1/0 for making the contract, or declarer's duplicate score.

An illegal card (one that does not follow suit, or is not in the hand to play from): with ``illegal="penalty"``
(the default of every env, `bridgerl.core.illegal`; ``"forfeit"`` is another name for it here, as pgx and
PettingZoo's classic games treat an illegal move) the hand ends there, the defence takes every trick still to play,
``info["illegal_action"]`` is True, ``info["illegal_card"]`` names the card and a warning says so once per env; with
``illegal="raise"`` ``step`` raises `IllegalPlayError` and nothing is played. Every action of ``Discrete(52)`` is
thus a valid ``step`` by default, as Gymnasium's env checker expects.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.actions import action_index
from bridgerl.core.card_play import (DEFAULT_CONTRACT, DEFAULT_DECLARER, OBSERVATION_SIZE, REWARDS, CardPlayDealSource,
                                     PlayerView, encode, final_reward, notify_deal, parse_contract, parse_played,
                                     render_text, view_of)
from bridgerl.core.cards import card_name
from bridgerl.core.illegal import check_illegal
from bridgerl.core.play import IllegalPlayError, PlayState
from bridgerl.envs.spaces import LegalActionSpace, MaskedEnv, binary_space
from bridgerl.envs.rendering import RENDER_MODES, check_render_mode, render


ILLEGAL_MODES = ("penalty", "raise", "forfeit")
"""``illegal=``: "forfeit" is card play's name for the penalty of every env (`bridgerl.core.illegal`)."""


class CardPlayEnv(MaskedEnv, gym.Env):
    """Declarer play against a defending agent. See the module docstring and `docs/play.md`."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(self, dataset="train", contract=DEFAULT_CONTRACT, declarer=DEFAULT_DECLARER, defenders=None,
                 reward: str = "tricks", played=(), render_mode: str | None = None, illegal: str = "penalty"):
        if defenders is None or not callable(getattr(defenders, "act", None)):
            raise ValueError("defenders must be a play agent with act(view) -> card, e.g. "
                             "PIMCAgent(worlds=8) from the agents package; gymnasium.make('bridgerl/CardPlay-v0') "
                             "supplies one")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        check_render_mode(render_mode)
        self.illegal = check_illegal(illegal, {"forfeit": "penalty"})
        self._warned = False
        self._forfeited: int | None = None
        self.source = CardPlayDealSource(load_dataset(dataset))
        self.dataset = self.source.dataset
        self.default_contract = parse_contract(contract, declarer)
        self.default_played = parse_played(played)
        self.defenders = defenders
        self.reward_mode = reward
        self.render_mode = render_mode
        self.observation_space = binary_space(OBSERVATION_SIZE)
        self.action_space = LegalActionSpace(52, self)
        self.state: PlayState | None = None
        self.vulnerable = False
        self.board = 1

    @property
    def deal(self) -> np.ndarray:
        """The current deal's owner array (what only a double-dummy agent may look at)."""
        return self.state.owner

    def legal_action_mask(self) -> np.ndarray | None:
        if self.state is None:
            return None
        return np.zeros(52, np.int8) if self._forfeited is not None else self.state.legal_mask()

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = dict(options or {})
        deal = self.source.deal_for_reset(self.np_random, options)
        owner, self.board = deal.owner, deal.board
        contract = self.default_contract
        if "contract" in options or "declarer" in options:
            contract = parse_contract(options.get("contract", contract), options.get("declarer", contract.declarer))
        self.vulnerable = deal.vulnerable(contract.declarer)
        self._forfeited = None
        self.state = PlayState.start(owner, contract, (parse_played(options["played"]) if "played" in options
                                                               else self.default_played))
        if self.state.is_over:
            raise ValueError("'played' holds all 52 cards: nothing is left to play")
        if hasattr(self.defenders, "reseed"):
            self.defenders.reseed(int(self.np_random.integers(2**63)))
        notify_deal(self.defenders, owner)
        self._defend()
        return self._observation(), self._info()

    def _defend(self) -> None:
        while not self.state.is_over and self.state.controller % 2 != self.state.declarer % 2:
            card = int(self.defenders.act(view_of(self.state)))
            self.state = self.state.play(card)

    def step(self, action):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_over:
            raise RuntimeError("the hand is over; call reset()")
        if self._forfeited is not None:
            raise RuntimeError("the hand is over (an illegal card ended it); call reset()")
        card = action_index(action, 52)
        if not 0 <= card < 52:
            if self.illegal == "raise":
                raise ValueError(f"action must be a card index in 0..51, got {card}")
            return self._forfeit(card, IllegalPlayError(f"#{card} is not a card (0..51)"))
        try:
            self.state = self.state.play(card)
        except IllegalPlayError as exc:
            if self.illegal == "raise":
                raise
            return self._forfeit(card, exc)
        self._defend()
        terminated = self.state.is_over
        reward = final_reward(self.state, self.reward_mode, self.vulnerable) if terminated else 0.0
        return self._observation(), reward, terminated, False, self._info()

    def _forfeit(self, card: int, error: IllegalPlayError):
        """End the hand on an illegal card: the defence takes every trick still to play."""
        if not self._warned:
            gym.logger.warn(f"bridgerl/CardPlay-v0: an illegal card ends the hand ({error}); the defence takes the "
                            f"remaining tricks (pass illegal='raise' to get an error instead)")
            self._warned = True
        self._forfeited = card
        reward = final_reward(self.state, self.reward_mode, self.vulnerable)  # on the tricks won so far
        info = self._info()
        info["illegal_card"] = card_name(card) if 0 <= card < 52 else f"#{card}"
        info["illegal_action"] = True
        return self._observation(), reward, True, False, info

    def current_view(self) -> PlayerView | None:
        return None if self.state.is_over or self._forfeited is not None else view_of(self.state)

    def _observation(self) -> np.ndarray:
        view = view_of(self.state, player=self.state.declarer) if self.state.is_over else view_of(self.state)
        return encode(view)

    def _info(self) -> dict:
        info = {"action_mask": self.legal_action_mask(), "seat": self.state.to_play,
                "view": self.current_view(), "declarer_tricks": self.state.declarer_tricks,
                "board": self.board, "illegal_action": False}
        return info

    def render(self):
        """The table as text (``"ansi"``), as an RGB image (``"rgb_array"``) or printed (``"human"``)."""
        if self.render_mode is None or self.state is None:
            return None
        return render(self.render_mode, render_text(self.state))

