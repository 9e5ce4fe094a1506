"""Gymnasium env ``bridgerl/Bridge-v0``: the whole deal (thesis 2.1): the auction, then the play of the contract by
agents (or its double-dummy result), scored in duplicate, over the rules module `bridgerl.core.bridge`.

Actions: ``Discrete(90)``: 0..37 the calls (0 Pass, 1 X, 2 XX, 3 + bid), 38 + card the cards (card = suit * 13 +
rank). Observation: ``MultiBinary(802)`` int8 for the seat choosing: bits 0-230 the competitive auction encoding,
bits 231-801 the play encoding (zero during the auction); `docs/envs.md`.

``agent_seats``: ``"all"`` (the agent acts at every turn; a step's reward belongs to the side that just acted, so
read ``info["returns"]`` for both sides), ``"NS"``/``"EW"`` or one seat letter: the agent acts whenever the seat
*choosing* (``info["player"]``: declarer for dummy's cards) is one of them; ``opponent`` bids (``act(observation,
action_mask)`` on the 231 bits and 38 calls, as in ``CompetitiveBidding-v0``) and ``opponent_play`` plays (``act(view)``
on a `PlayerView`, as in ``CardPlay-v0``) the other seats. A missing one where it is needed is an error at
construction. Reward at the end only: duplicate points of the agent's side (``reward="score"``) or IMPs of its
score against the board's par (``"par_imps"``, alias ``"imps_vs_par"``). No TimeLimit: every deal ends.

``info`` at every step: ``action_mask`` (int8[90]), ``seat``, ``player``, ``phase``, ``dealer``, ``vul``, ``index``
(-1 for a PBN deal) and ``board``, and ``view`` (the chooser's `AuctionView` or `PlayerView`, None at the end)
unless ``info_view=False`` leaves it out (it is the costliest part of a step); at the end also the result's keys.
The play bits of the observation are kept up to date card by card (`bridgerl.core.card_play.PlayEncoder`).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.actions import action_index
from bridgerl.core.illegal import check_illegal, check_penalty, penalty_returns
from bridgerl.core.bridge import (AUCTION_OBSERVATION_SIZE, CARD_OFFSET, NUM_ACTIONS, OBSERVATION_SIZE, BridgeResult,
                                  BridgeState, action_name, check_modes, render_text)
from bridgerl.core.card_play import PlayEncoder, notify_deal  # noqa: F401  (the encoder's type)
from bridgerl.core.cards import SEATS, parse_seat
from bridgerl.core.competitive import RESET_OPTIONS, CompetitiveDealSource, auction_encoder
from bridgerl.envs.spaces import LegalActionSpace, MaskedEnv, binary_space
from bridgerl.envs.rendering import RENDER_MODES, check_render_mode, render

RECORD_OPTIONS = {"record", "upto"}


def parse_agent_seats(agent_seats) -> frozenset[int]:
    """The seats the agent acts for: "all", "NS", "EW" or one seat letter (N, E, S, W)."""
    if agent_seats == "all":
        return frozenset(range(4))
    if agent_seats in ("NS", "EW"):
        return frozenset((0, 2) if agent_seats == "NS" else (1, 3))
    try:
        return frozenset((parse_seat(agent_seats),))
    except (ValueError, TypeError):
        raise ValueError(f"agent_seats must be 'all', 'NS', 'EW' or a seat N, E, S, W; got {agent_seats!r}") from None


class BridgeEnv(MaskedEnv, gym.Env):
    """The whole deal on deals from a dataset (default: the bundled training split). See the module docstring."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 4}

    def __init__(self, dataset="train", agent_seats="all", opponent=None, opponent_play=None, play: str = "agents",
                 reward: str = "score", render_mode: str | None = None, info_view: bool = True,
                 illegal: str = "penalty", illegal_penalty: float | None = None):
        seats = parse_agent_seats(agent_seats)
        self.illegal = check_illegal(illegal)
        self.illegal_penalty = check_penalty(illegal_penalty)  # None: the reward unit's default
        play, reward = check_modes(play, reward)
        check_render_mode(render_mode)
        others = len(seats) < 4
        if others and not callable(getattr(opponent, "act", None)):
            raise ValueError(f"agent_seats={agent_seats!r} leaves seats to others: pass opponent= a bidding agent "
                             f"with act(observation, action_mask) -> call")
        if others and play == "agents" and not callable(getattr(opponent_play, "act", None)):
            raise ValueError(f"agent_seats={agent_seats!r} with play='agents' leaves cards to others: pass "
                             f"opponent_play= a play agent with act(view) -> card (or play='double_dummy')")
        if not others and (opponent is not None or opponent_play is not None):
            raise ValueError("agent_seats='all' leaves no seat to an opponent; pass agent_seats='NS', 'EW' or a seat")
        self.source = CompetitiveDealSource(load_dataset(dataset))
        self.agent_seats = seats
        self._others = len(seats) < 4  # some seats are the opponents'
        self.opponent, self.opponent_play = opponent, opponent_play
        self.play_mode, self.reward_mode = play, reward
        self.render_mode = render_mode
        self.info_view = bool(info_view)
        self.observation_space = binary_space(OBSERVATION_SIZE)
        self.action_space = LegalActionSpace(NUM_ACTIONS, self)
        self.state: BridgeState | None = None
        self.outcome: BridgeResult | None = None
        self._encoder: PlayEncoder | None = None  # the play bits, updated card by card
        self._chooser = -1  # the seat choosing in ``state``, -1 once it is over (`step`: the reward's side)

    # -- Gymnasium API -----------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Options as in ``CompetitiveBidding-v0`` (``index``, ``deal``, ``dealer``, ``vul``), or ``record`` (a
        `bridgerl.core.records.HandRecord`, e.g. from ``read_records("file.pbn")``) with ``upto`` (the number of
        its calls and cards to replay; default all): the game continues from that point."""
        super().reset(seed=seed)
        options = dict(options or {})
        if "record" in options or "upto" in options:
            self.state = self._replay(options)
        else:
            self.state = BridgeState.start(self.source.deal_for_reset(self.np_random, options), self.play_mode)
        self._calls = auction_encoder(self.state.auction)  # the auction bits, updated call by call
        self._encoder = None if self.state.play is None else self.state.play_encoder(self._calls)
        self._hands = self.state.deal.hands()
        self.outcome = None
        self._illegal_end = False
        deal = self.state.deal
        self._deal_info = deal.info()
        if self.opponent_play is not None:
            if hasattr(self.opponent_play, "reseed"):
                self.opponent_play.reseed(int(self.np_random.integers(2**63)))
            notify_deal(self.opponent_play, deal.owner)
            if hasattr(self.opponent_play, "see_bidders"):  # the systems the env knows: its opponent's seats
                self.opponent_play.see_bidders({s: self.opponent for s in range(4) if s not in self.agent_seats})
        self._play_others()
        return self._step_result()

    def step(self, action):
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self._chooser < 0:
            raise RuntimeError("the deal is over; call reset()")
        self._check_stepping()
        acting = self._chooser  # the seat choosing now, as the last step's info said
        action = action_index(action, NUM_ACTIONS)
        if self.illegal == "penalty" and not (0 <= action < NUM_ACTIONS and self.state.legal_mask()[action]):
            returns = penalty_returns(acting % 2, self.reward_mode, penalty=self.illegal_penalty)
            obs, info = self._step_result()
            self._chooser = -1
            return self._penalised(obs, {**info, "returns": returns},
                                   returns[min(self.agent_seats)] if self._others else returns[acting])
        self._apply(action)  # illegal: a ValueError naming it
        if self._others:
            self._play_others()
        obs, info = self._step_result()
        if self._chooser >= 0:
            return obs, 0.0, False, False, info
        returns = info["returns"]
        return obs, (returns[min(self.agent_seats)] if self._others else returns[acting]), True, False, info

    def legal_action_mask(self) -> np.ndarray | None:
        if self.state is None:
            return None
        return np.zeros(NUM_ACTIONS, bool) if self._illegal_end else self.state.legal_mask()

    def render(self):
        """The table as text (``"ansi"``), as an RGB image (``"rgb_array"``) or printed (``"human"``)."""
        if self.render_mode is None or self.state is None:
            return None
        return render(self.render_mode, render_text(self.state, self.outcome))

    # -- internals ---------------------------------------------------------------------------------------------
    def _apply(self, action: int) -> None:
        """The next state, with the observation's bits brought up to date (one call or card, not the whole deal
        again)."""
        state = self.state.apply(action)
        self.state = state
        if state.play is not None:
            if self._encoder is None:  # the opening lead is due: `_calls` holds the auction but its final pass
                self._encoder = state.play_encoder(self._calls)
            else:
                self._encoder.add(state.play)
        elif not state.auction.is_over:  # the auction bits stop at the last call before the final pass
            self._calls.add(action)

    def _observation(self, phase: str, seat: int, player: int) -> np.ndarray:
        """int8[802] for ``player`` choosing ``seat``'s call or card: `BridgeState.observation`, from the bits kept
        up to date."""
        state = self.state
        if phase == "auction":
            obs = np.zeros(OBSERVATION_SIZE, dtype=np.int8)
            deal = state.deal
            self._calls.observation(deal.vulnerable(player), deal.vulnerable(player + 1), self._hands[player],
                                    out=obs[:AUCTION_OBSERVATION_SIZE])
            return obs
        if phase == "play":  # the auction bits are the encoder's prefix (`BridgeState.play_encoder`): one gather
            return self._encoder.observation(player, seat)
        return state.observation(player, encoder=self._encoder)

    def _replay(self, options: dict) -> BridgeState:
        from bridgerl.core.records import replay

        if "record" not in options:
            raise ValueError("reset option 'upto' needs a 'record'")
        extra = set(options) - RECORD_OPTIONS
        if extra:
            raise ValueError(f"reset option 'record' takes only 'upto' beside it, got {sorted(extra)}")
        return replay(options["record"], options.get("upto"), play=self.play_mode)

    def _play_others(self) -> None:
        """Let the opponents act until an agent seat chooses or the deal ends."""
        while self._others and not self.state.is_over and self.state.player not in self.agent_seats:
            state = self.state
            if state.phase == "auction":
                obs = state.auction_observation()
                action = int(self.opponent.act(obs, state.auction.legal_mask().astype(np.int8)))
                what = "call"
            else:
                action = CARD_OFFSET + int(self.opponent_play.act(state.view()))
                what = "card"
            if not (0 <= action < NUM_ACTIONS and state.legal_mask()[action]):
                name = action_name(action) if 0 <= action < NUM_ACTIONS else f"#{action}"
                raise ValueError(f"the opponent at {SEATS[state.player]} chose an illegal {what} {name}")
            self._apply(action)

    def _step_result(self) -> tuple[np.ndarray, dict]:
        state = self.state
        phase, seat, player = state.turn()
        self._chooser = -1 if phase == "over" else player
        info = self._deal_info.copy()  # dealer, vul, index, board
        info["action_mask"] = state.legal_mask(np.int8)
        info["illegal_action"] = False
        info["seat"], info["player"], info["phase"] = seat, player, phase
        if self.info_view:
            info["view"] = None if phase == "over" else state.view()
        if phase == "over":
            self.outcome = self.outcome or state.result()
            info.update(self.outcome.info(self.reward_mode))
        return self._observation(phase, seat, player), info


__all__ = ["BridgeEnv", "parse_agent_seats", "RESET_OPTIONS"]
