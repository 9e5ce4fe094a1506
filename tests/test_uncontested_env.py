"""Uncontested bidding (thesis 4.4): rewards on hand-built deals, opening rules, the 89 bits, both interfaces."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import bridgerl  # noqa: F401  (registers the env)
from bridgerl.core import imps, parse_call, pbn_to_owner
from bridgerl.core.generate import deal_owners
from bridgerl.core.uncontested import opening_action_mask

ENV_ID = "bridgerl/UncontestedBidding-v0"
# Any deal will do for the reward tests: the DD tables below are written by hand.
OWNER = pbn_to_owner("N:AK2.Q32.K432.J32 QJ3.K54.QJ65.Q54 T987.JT9.T9.T987 654.A876.A87.AK6")


def _table(ew, ns=(3, 3, 3, 3, 3)):
    """DD table with West/East tricks ``ew`` = ((C, D, H, S, NT) for W, same for E) and NS tricks ``ns``."""
    dd = np.zeros((4, 5), dtype=np.uint8)
    dd[3], dd[1] = ew
    dd[0] = dd[2] = ns
    return dd


GAME_DEAL = _table(((8, 7, 10, 6, 9), (8, 7, 9, 6, 8)))        # EW: 4H by West = 420 (not vulnerable)
SLAM_DEAL = _table(((7, 7, 11, 12, 12), (7, 7, 10, 12, 11)))   # EW: 6NT by West = 1440 (vulnerable)
NOTHING_FOR_EW = _table(((5, 5, 5, 5, 5), (5, 5, 5, 5, 5)), ns=(7, 9, 6, 8, 8))   # NS: 2D = 90 or 1NT 120...


def _env(tables, boards, **kwargs):
    data = {"owner": np.stack([OWNER] * len(tables)), "dd": np.stack(tables), "board": np.array(boards)}
    return gym.make(ENV_ID, dataset=data, disable_env_checker=True, **kwargs).unwrapped


def _bid(env, *calls):
    """Play uncontested ``calls`` (strings); returns the last step's reward and info."""
    reward, info = 0.0, None
    for text in calls:
        call = parse_call(text)
        _, reward, done, _, info = env.step(0 if call == 0 else call - 2)
    assert done
    return reward, info


@pytest.mark.parametrize("calls, contract, declarer, score", [
    (["1H", "4H", "P"], "4H", 3, 420),                 # game, West named hearts first
    (["1H", "2H", "P"], "2H", 3, 170),                 # partscore with two overtricks
    (["1C", "1H", "4H", "P"], "4H", 1, -50),           # wrong declarer: East named hearts, takes 9
    (["1H", "5H", "P"], "5H", 3, -50),                 # down one, undoubled
    (["1H", "6H", "P"], "6HX", 3, -300),               # down two, doubled
    (["1NT", "3NT", "P"], "3NT", 3, 400),              # 3NT just making
    (["P", "P"], "Pass", -1, 0),                       # pass-out: no declarer, -1
    (["P", "1S", "P"], "1S", 1, 50 * -1),              # after an initial pass East opens; 6 tricks: down one
])
def test_rewards_on_the_game_deal(calls, contract, declarer, score):
    env = _env([GAME_DEAL], [1], opening_rules=False)   # board 1: nobody vulnerable
    _, info = env.reset(options={"index": 0})
    assert info["side"] == 1 and info["seat"] == 3 and info["vulnerable"] is False
    reward, info = _bid(env, *calls)
    assert (info["contract"], info["declarer"], info["score"], info["par"]) == (contract, declarer, score, 420)
    assert reward == imps(score - 420) and -24 <= reward <= 0


def test_hand_computed_imps_and_points():
    env = _env([GAME_DEAL], [1], opening_rules=False)
    env.reset(options={"index": 0})
    assert _bid(env, "1H", "2H", "P")[0] == -6      # 170 vs 420: 250 points
    env.reset(options={"index": 0})
    assert _bid(env, "1H", "6H", "P")[0] == -12     # -300 vs 420: 720 points
    env.reset(options={"index": 0})
    assert _bid(env, "P", "P")[0] == -9             # 0 vs 420
    points = _env([GAME_DEAL], [1], opening_rules=False, reward="points")
    points.reset(options={"index": 0})
    assert _bid(points, "1H", "2H", "P")[0] == -250


def test_slam_deal_vulnerable():
    env = _env([SLAM_DEAL], [4], opening_rules=False)   # board 4: both vulnerable
    _, info = env.reset(options={"index": 0})
    assert info["vulnerable"] is True
    reward, info = _bid(env, "1S", "4S", "P")
    assert (info["score"], info["par"], reward) == (680, 1440, -13)
    env.reset(options={"index": 0})
    reward, info = _bid(env, "1S", "6S", "P")
    assert (info["score"], reward) == (1430, 0)       # 10 points below 6NT: no IMP
    env.reset(options={"index": 0})
    assert _bid(env, "2NT", "6NT", "P")[0] == 0
    env.reset(options={"index": 0})
    reward, info = _bid(env, "1S", "7S", "P")          # down one vulnerable, undoubled
    assert (info["score"], reward) == (-100, imps(-1540))


def test_side_rule_and_sampling_skip():
    # row 0: EW can make nothing, NS can -> NS bid; row 1: nobody makes anything -> never sampled.
    nothing = _table(((5, 5, 5, 5, 5), (5, 5, 5, 5, 5)), ns=(6, 6, 6, 6, 6))
    env = _env([NOTHING_FOR_EW, nothing], [1, 2])
    rows = set()
    for seed in range(20):
        _, info = env.reset(seed=seed)
        rows.add(info["index"])
        assert info["side"] == 0 and info["seat"] == 0   # NS, North bids first
    assert rows == {0}
    _, info = env.reset(options={"index": 1})            # asked for explicitly: NS bid, par 0
    assert info["side"] == 0
    _, info = env.reset(options={"index": 0, "side": "EW"})
    assert info["side"] == 1 and info["seat"] == 3
    _, info = env.reset(options={"index": 0, "vulnerable": True})
    assert info["vulnerable"] is True


def _hand(spades, hearts, diamonds, clubs):
    """A deal where North holds the given hand (other cards dealt round the table)."""
    hand = f"{spades}.{hearts}.{diamonds}.{clubs}"
    owner = np.zeros(52, dtype=np.uint8)
    north = np.zeros(52, dtype=bool)
    ranks = "23456789TJQKA"
    for suit, holding in zip((3, 2, 1, 0), (spades, hearts, diamonds, clubs)):
        for ch in holding:
            north[suit * 13 + ranks.index(ch)] = True
    assert north.sum() == 13, hand
    rest = np.flatnonzero(~north)
    owner[north] = 0
    owner[rest] = np.repeat([1, 2, 3], 13)
    return owner


def test_side_rule_with_few_searches_agrees_with_the_whole_table():
    """`side_rule_deals` (one DDS search of EW's likeliest contract before any whole table: ISMCTS's resamples) gives
    the thesis side rule's answer on the bundled tables, for both sides, and the table it returns is the row's."""
    from bridgerl.core import load_dataset
    from bridgerl.core.uncontested import can_make_anything, side_rule_deals, thesis_side

    data = load_dataset("test")
    rows = list(range(0, 400, 40)) + list(np.flatnonzero(thesis_side(data.dd[:400]) == 0)[:4])  # NS deals too
    for row in rows:
        for side in (0, 1):
            dealt, table = side_rule_deals(data.owner[row], side)
            assert dealt == bool(thesis_side(data.dd[row]) == side and can_make_anything(data.dd[row]))
            assert table is None or np.array_equal(table, data.dd[row])


@pytest.mark.parametrize("hand, allowed", [
    (("KQ642", "J2", "K87", "A54"), ["P", "1S"]),          # 13 HCP (thesis table 4.5): pass or 1S
    (("KQ642", "J2", "K87", "T54"), ["P"]),                # 9 HCP: must pass
    (("KQ642", "Q2", "K87", "T54"), ["P", "1S"]),          # 10 HCP: may pass or open
    (("K9865", "32", "A9", "9842"), ["P"]),                # 7 HCP: must pass
    (("AK9865", "3", "A9", "9842"), ["P", "1S"]),          # 11 HCP 6-1-2-4: 1S
    (("AK9865", "K", "A9", "9842"), ["1S"]),               # 14 HCP: must open
    (("AQ2", "KJ3", "KJ32", "Q32"), ["1D", "1NT"]),        # 15 balanced: 1D (4 diamonds > 3 clubs) or 1NT
    (("AQ2", "KJ3", "KJ32", "K32"), ["1D", "1NT"]),        # 17
    (("AQ2", "KJ3", "KJ32", "A32"), ["1D"]),               # 18: no NT
    (("AQ2", "KJ3", "AJ32", "KQ2"), ["1D", "2NT"]),        # 20 balanced
    (("AQ2", "KJ3", "AJ32", "AQ2"), ["1D", "2NT"]),        # 21
    (("AQ2", "KQ3", "AJ32", "AQ2"), ["1D"]),               # 22: no 2NT
    (("AQ2", "KJ3", "AJ32", "QJ2"), ["1D"]),               # 19: no NT
    (("AKQ32", "K32", "Q2", "K32"), ["1S", "1NT"]),        # 5-3-2-3, 16: 1S or 1NT
    (("AK432", "AQ432", "2", "K2"), ["1S"]),               # 5-5 majors: 1S
    (("A2", "AK432", "KQ432", "2"), ["1H"]),               # 5-5 hearts and diamonds: hearts not shorter
    (("A2", "AK432", "Q5432", "2"), ["P", "1H"]),          # the same with 13 HCP: pass allowed
    (("A2", "AK432", "KQ6543", ""), ["1D"]),               # 6 diamonds longer than hearts: 1D
    (("A2", "AK432", "", "KQ6543"), ["1C"]),               # 6 clubs longer than hearts: not 1H, not 1D -> 1C
    (("AK32", "KQ32", "A2", "432"), ["1C", "1NT"]),        # 4-4 majors, 2 diamonds, 3 clubs, 16: 1C or 1NT
    (("AK32", "KQ32", "A32", "32"), ["1D", "1NT"]),        # 4-4-3-2, 16: 1D or 1NT
    (("AK32", "KQ32", "J32", "32"), ["P", "1D"]),          # 4-4-3-2, 13: pass or 1D
    (("A2", "K32", "KQ32", "A432"), ["1C", "1NT"]),        # 4-4 minors, 16 balanced: 1C (diamonds not longer)
    (("A2", "K3", "KQ432", "A432"), ["1D"]),               # 5 diamonds 4 clubs: 1D
])
def test_opening_rule_boundaries(hand, allowed):
    mask = opening_action_mask(_hand(*hand), 0)
    got = sorted(("Pass" if a == 0 else {1: "1C", 2: "1D", 3: "1H", 4: "1S", 5: "1NT", 10: "2NT"}[a])
                 for a in np.flatnonzero(mask))
    expected = sorted("Pass" if c == "P" else c for c in allowed)
    assert got == expected


def test_opening_rules_apply_to_whoever_opens():
    owner = _hand("AK9865", "K", "A9", "9842")    # North 14 HCP must open; South holds 13 of the rest
    data = {"owner": owner[None], "dd": GAME_DEAL[None]}
    env = gym.make(ENV_ID, dataset=data, side="NS", disable_env_checker=True, illegal="raise").unwrapped
    _, info = env.reset(options={"index": 0})
    assert info["action_mask"].tolist() == opening_action_mask(owner, 0).astype(np.int8).tolist()
    with pytest.raises(ValueError, match=r"illegal call Pass by N .*opening rules.*legal actions are 1S"):
        env.step(0)
    with pytest.raises(ValueError, match="illegal call 7NT"):
        env.step(35)


def test_89_bit_layout():
    env = _env([GAME_DEAL], [3], opening_rules=False)       # board 3: EW vulnerable
    obs, info = env.reset(options={"index": 0})
    assert obs.dtype == np.int8 and obs.shape == (89,)
    assert obs[0] == 1 and obs[1] == 0 and obs[2:37].sum() == 0
    assert (obs[37:] == (OWNER == 3)).all()                 # West's 13 cards
    obs, *_ = env.step(0)                                    # West passes
    assert obs[1] == 1 and (obs[37:] == (OWNER == 1)).all()  # East to act sees the initial pass
    obs, _, _, _, info = env.step(1 + 2)                     # East 1H (bid 2)
    assert info["seat"] == 3 and obs[1] == 1 and obs[2 + 2] == 1 and obs[2:37].sum() == 1
    obs, *_ = env.step(1 + 19)                               # West 4NT (bid 19)
    assert obs[2 + 2] == obs[2 + 19] == 1 and obs[2:37].sum() == 2
    assert info["action_mask"].tolist() == [1, 0, 0, 0] + [1] * 32


def test_seeded_determinism_and_checkers():
    data = {"owner": deal_owners(0, 30), "dd": np.stack([GAME_DEAL, SLAM_DEAL, NOTHING_FOR_EW] * 10)}

    def episodes(seed):
        env = gym.make(ENV_ID, dataset=data)
        env.action_space.seed(seed)
        out = []
        obs, info = env.reset(seed=seed)
        for _ in range(200):
            action = env.action_space.sample()
            assert info["action_mask"][action] == 1
            obs, reward, done, _, info = env.step(action)
            out.append((obs.tobytes(), reward, info["index"]))
            if done:
                obs, info = env.reset()
        return out

    assert episodes(5) == episodes(5)
    assert episodes(5) != episodes(6)
    # check_env samples an action before a seeded reset and plays it after: without opening rules every first
    # call is legal; with them it depends on the deal (see test_check_env_on_bundled_data).
    check_env(gym.make(ENV_ID, dataset=data, opening_rules=False).unwrapped, skip_render_check=False)


def test_reset_with_pbn_deal_and_render():
    env = gym.make(ENV_ID, dataset={"owner": OWNER[None], "dd": GAME_DEAL[None]}, render_mode="ansi").unwrapped
    pbn = '[Board "3"]\n[Dealer "S"]\n[Vulnerable "EW"]\n[Deal "N:AK2.Q32.K432.J32 QJ3.K54.QJ65.Q54 T987.JT9.T9.T987 654.A876.A87.AK6"]'
    _, info = env.reset(options={"deal": pbn, "side": "EW"})
    assert info["index"] == -1 and info["board"] == 3 and info["vulnerable"] is True
    text = env.render()
    assert "W: ♠654 ♥A876 ♦A87 ♣AK6" in text and "E: ♠QJ3" in text
    env.step(1)  # West 1C
    env.step(0)  # East passes
    text = env.render()
    assert "W 1C  E Pass" in text and "Result: 1C by W" in text
    with pytest.raises(ValueError, match="call Pass after the end of the auction"):
        env.step(0)
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"dealer": 2})
    with pytest.raises(ValueError, match="outside the dataset's rows"):
        env.reset(options={"index": 5})


def test_check_env_on_bundled_data_with_defaults():
    # the default configuration: bundled training deals, thesis side rule, opening rules
    check_env(gym.make(ENV_ID).unwrapped)
    env = gym.make(ENV_ID)
    obs, info = env.reset(seed=0)
    assert info["index"] is not None and obs.shape == (89,)
