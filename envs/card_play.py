"""Gymnasium card-play env ``bridgerl/CardPlay-v0`` (thesis 2.1.5) over `bridgerl.core.play`.

The agent plays declarer's and dummy's cards; the defenders are another play agent (``act(view) -> card``).
Observation: `play_encoding` (571 bits, `docs/play.md`); action: a card index 0-51; ``info`` holds
``action_mask`` (int8[52]), ``seat`` (the seat whose card is due) and ``view`` (a `PlayerView`).
Reward at the end only: declarer's tricks, 1/0 for making the contract, or declarer's duplicate score.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.board import is_vulnerable, parse_vul, vul_for_board
from bridgerl.core.cards import SEATS, card_name, hand_text, parse_card, parse_seat
from bridgerl.core.contract import Contract
from bridgerl.core.pbn import parse_deal_option
from bridgerl.core.play import PlayState
from bridgerl.core.scoring import score
from bridgerl.envs.deal_source import check_reset_options
from bridgerl.envs.play_encoding import OBSERVATION_SIZE, encode
from bridgerl.envs.play_view import PlayerView, view_of
from bridgerl.envs.spaces import LegalActionSpace, binary_space

REWARDS = ("tricks", "score", "make")
DEFAULT_CONTRACT = "3NT"
DEFAULT_DECLARER = "S"
_RESET_KEYS = {"index", "deal", "contract", "declarer", "played"}


def parse_played(played) -> list[int]:
    """Card indices from names ('SA', 'H7', 'CT') or indices, or from one space-separated string."""
    if isinstance(played, str):
        played = played.split()
    return [parse_card(c) if isinstance(c, str) else int(c) for c in played]


def parse_contract(contract, declarer) -> Contract:
    """A `Contract` from '3NT', '4SX' or a Contract, with the declarer seat (letter or 0-3)."""
    if isinstance(contract, Contract):
        return Contract(contract.level, contract.strain, contract.penalty, parse_seat(declarer))
    return Contract.parse(str(contract), parse_seat(declarer))


def final_reward(state: PlayState, mode: str, vulnerable: bool) -> float:
    """Declarer's reward at the end of the play."""
    tricks = state.declarer_tricks
    if mode == "tricks":
        return float(tricks)
    if mode == "make":
        return float(tricks >= state.contract.tricks_needed)
    c = state.contract
    return float(score(c.level, c.strain, c.penalty, vulnerable, tricks))


def notify_deal(agent, owner) -> None:
    """Show the deal to an agent that sees it (the double-dummy oracle)."""
    if hasattr(agent, "see_deal"):
        agent.see_deal(owner)


class CardPlayEnv(gym.Env):
    """Declarer play against a defending agent. See the module docstring and `docs/play.md`."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, dataset="train", contract=DEFAULT_CONTRACT, declarer=DEFAULT_DECLARER, defenders=None,
                 reward: str = "tricks", played=(), render_mode: str | None = None):
        if defenders is None or not callable(getattr(defenders, "act", None)):
            raise ValueError("defenders must be a play agent with act(view) -> card, e.g. "
                             "bridgerl.agents.PIMCAgent(worlds=8); gymnasium.make('bridgerl/CardPlay-v0') "
                             "supplies one")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.dataset = load_dataset(dataset)
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
        return self.state.legal_mask() if self.state is not None else None

    def _choose_deal(self, options: dict) -> tuple[np.ndarray, int, str]:
        if "deal" in options:
            owner, board, vul, _dealer = parse_deal_option(options["deal"])
            return owner, board, vul or vul_for_board(board)
        if "index" in options:
            row = int(options["index"])
            if not 0 <= row < len(self.dataset):
                raise ValueError(f"index {row} is outside the dataset's rows 0..{len(self.dataset) - 1}")
        else:
            row = int(self.np_random.integers(len(self.dataset)))
        board = int(self.dataset.boards[row])
        return self.dataset.owner[row], board, vul_for_board(board)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        options = dict(options or {})
        check_reset_options(options, _RESET_KEYS)
        owner, self.board, vul = self._choose_deal(options)
        contract = self.default_contract
        if "contract" in options or "declarer" in options:
            contract = parse_contract(options.get("contract", contract), options.get("declarer", contract.declarer))
        self.vulnerable = is_vulnerable(parse_vul(vul), contract.declarer)
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
        self.state = self.state.play(int(action))
        self._defend()
        terminated = self.state.is_over
        reward = final_reward(self.state, self.reward_mode, self.vulnerable) if terminated else 0.0
        return self._observation(), reward, terminated, False, self._info()

    def current_view(self) -> PlayerView | None:
        return None if self.state.is_over else view_of(self.state)

    def _observation(self) -> np.ndarray:
        view = view_of(self.state, player=self.state.declarer) if self.state.is_over else view_of(self.state)
        return encode(view)

    def _info(self) -> dict:
        info = {"action_mask": self.state.legal_mask(), "seat": self.state.to_play,
                "view": self.current_view(), "declarer_tricks": self.state.declarer_tricks,
                "board": self.board}
        return info

    def render(self):
        if self.render_mode != "ansi":
            return None
        return render_text(self.state)


def render_text(state: PlayState) -> str:
    """The four hands still held, the tricks so far and the trick in progress."""
    lines = [f"Contract {state.contract}  tricks declarer {state.declarer_tricks} defence {state.defence_tricks}"]
    remaining = state.remaining_owner()
    for seat in range(4):
        lines.append(f"  {SEATS[seat]} {hand_text(remaining, seat)}")
    for i, trick in enumerate(state.all_tricks()):
        lines.append(f"  trick {i + 1}: " + " ".join(f"{SEATS[s]}:{card_name(c)}" for s, c in
                                                     zip(trick.seats, trick.cards)))
    return "\n".join(lines)
