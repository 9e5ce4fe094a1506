"""The envs in the hands of the libraries researchers train with: pickle and deepcopy (SB3's save, async vector
envs), Gymnasium's sync and async vector envs over deals that pass out, one type per ``info`` key, ``action_masks()``
(sb3-contrib), OpenSpiel's ISMCTS (``resample_from_infostate``) and a deal chance structure whose cost does not grow
with the dataset. Stable-Baselines3 itself: `tests/test_sb3.py` (opt-in ``sb3`` extra); pgx-style code:
`tests/test_jax_pgx.py`."""

from __future__ import annotations

import copy
import pickle

import gymnasium as gym
import numpy as np
import pyspiel
import pytest

import bridgerl  # noqa: F401  (registers the Gymnasium ids)
import bridgerl.envs.openspiel  # noqa: F401  (registers the OpenSpiel games)
from bridgerl.agents import PIMCAgent, RuleBidder
from bridgerl.core import load_dataset, save_dataset
from bridgerl.core.dataset import make_dataset
from bridgerl.core.play import PlayState
from bridgerl.envs.openspiel_common import RowDealer


def _envs():
    """(id, kwargs) of every Gymnasium env, with rule and PIMC opponents where the env takes them."""
    return [
        ("bridgerl/UncontestedBidding-v0", {}),
        ("bridgerl/CompetitiveBidding-v0", {}),
        ("bridgerl/CompetitiveBidding-v0", {"agent_seats": "NS", "opponent": RuleBidder(competitive=True)}),
        ("bridgerl/CardPlay-v0", {"defenders": PIMCAgent(worlds=1, seed=0)}),
        ("bridgerl/Bridge-v0", {}),
        ("bridgerl/Bridge-v0", {"agent_seats": "NS", "opponent": RuleBidder(competitive=True),
                                "opponent_play": PIMCAgent(worlds=1, seed=0)}),
        ("bridgerl/Bridge-v0", {"play": "double_dummy", "info_view": False}),
    ]


ENV_IDS = ["uncontested", "competitive", "competitive-vs-rules", "card_play-vs-pimc", "bridge", "bridge-vs-rules-pimc",
           "bridge-dd"]


def _action(info, rng, pass_often=False):
    """A random legal action; ``pass_often`` takes action 0 (Pass) four times in five, so auctions pass out."""
    legal = np.flatnonzero(info["action_mask"])
    if pass_often and info["action_mask"][0] and rng.random() < 0.8:
        return 0
    return int(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("env_id,kwargs", _envs(), ids=ENV_IDS)
def test_every_env_pickles_and_deep_copies_mid_episode(env_id, kwargs):
    """A copy (pickled, or deep-copied) of the env, wrapped or not, taken after a few steps plays on exactly as the
    original does; its info and its legal-action space copy too, and a copied space samples legal actions."""
    env = gym.make(env_id, dataset="test", **kwargs)
    for copy_of in (lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy):
        for original in (env, env.unwrapped):
            rng = np.random.default_rng(0)
            _, info = original.reset(seed=5)
            for _ in range(3):
                _, _, done, _, info = original.step(_action(info, rng))
                if done:
                    _, info = original.reset()
            assert set(copy_of(info)) == set(info)
            twin = copy_of(original)
            assert np.array_equal(twin.unwrapped.action_masks(), info["action_mask"])
            space = copy_of(twin.action_space)  # alone: it brings a copy of its env along
            assert all(info["action_mask"][space.sample()] for _ in range(20))
            for _ in range(8):
                action = _action(info, rng)
                obs, reward, done, _, info = original.step(action)
                twin_obs, twin_reward, twin_done, _, twin_info = twin.step(action)
                assert np.array_equal(obs, twin_obs) and reward == twin_reward and done == twin_done
                assert np.array_equal(info["action_mask"], twin_info["action_mask"])
                if done:
                    break
                assert all(info["action_mask"][twin.action_space.sample()] for _ in range(20))
    env.close()


@pytest.mark.parametrize("env_id,kwargs", [e for e in _envs() if e[0] != "bridgerl/CardPlay-v0"],
                         ids=[i for i in ENV_IDS if not i.startswith("card_play")])
def test_info_keys_keep_one_type_over_pass_outs(env_id, kwargs):
    """Every key but ``view`` keeps one type (and shape) over whole episodes, pass-outs included: a seat or row that
    does not exist is -1, never None."""
    env = gym.make(env_id, dataset="test", **kwargs)
    rng = np.random.default_rng(3)
    kinds: dict[str, set] = {}
    passed_out = 0
    for episode in range(12):
        _, info = env.reset(seed=episode)
        infos = [info]
        done = False
        while not done:
            _, _, done, _, info = env.step(_action(info, rng, pass_often=True))
            infos.append(info)
        passed_out += info["contract"] == "Pass"
        if info["contract"] == "Pass":
            assert info["declarer"] == -1
        for step_info in infos:
            for key, value in step_info.items():
                if key != "view":
                    kinds.setdefault(key, set()).add((type(value), np.shape(value)))
    assert passed_out > 0
    assert {key: kind for key, kind in kinds.items() if len(kind) > 1} == {}
    _, info = env.reset(options={"deal": "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"})
    assert info["index"] == -1
    env.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_vector_envs_over_every_env(mode):
    """``gymnasium.make_vec`` in both modes over every env, with auctions that pass out (the infos stack)."""
    rng = np.random.default_rng(0)
    for env_id, kwargs in [("bridgerl/UncontestedBidding-v0", {}), ("bridgerl/CompetitiveBidding-v0", {}),
                           ("bridgerl/CardPlay-v0", {"defender_worlds": 2}),
                           ("bridgerl/Bridge-v0", {"play": "double_dummy"}),
                           ("bridgerl/Bridge-v0", {"info_view": False})]:
        envs = gym.make_vec(env_id, num_envs=2, vectorization_mode=mode, dataset="test", **kwargs)
        obs, info = envs.reset(seed=0)
        ended = 0
        for _ in range(90 if env_id == "bridgerl/Bridge-v0" and "play" not in kwargs else 40):
            actions = [_action({"action_mask": mask}, rng, pass_often=True) if mask.any() else 0
                       for mask in info["action_mask"]]
            obs, rewards, terminated, truncated, info = envs.step(np.array(actions))
            assert obs.shape == (2,) + envs.single_observation_space.shape and obs.dtype == np.int8
            ended += int(terminated.sum())
            if "declarer" in info:
                assert info["declarer"].dtype.kind == "i"
        assert ended > 0, env_id
        envs.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_vector_env_samples_legal_actions_from_its_masks(mode):
    """A vector env's ``action_space.sample()`` knows no env's state (Gymnasium batches the space into a
    MultiDiscrete; SB3's VecEnvs share env 0's space): the documented way is ``sample(mask=...)`` with the step's
    stacked ``info["action_mask"]``, legal for every env of the batch; one env's own ``action_space.sample()`` is
    legal for that env."""
    envs = gym.make_vec("bridgerl/CompetitiveBidding-v0", num_envs=4, vectorization_mode=mode, dataset="test")
    _, info = envs.reset(seed=0)
    envs.action_space.seed(0)
    legal = 0
    for _ in range(60):
        masks = info["action_mask"]
        actions = envs.action_space.sample(mask=tuple(m.astype(np.int8) for m in masks))
        assert all(masks[i][a] or not masks[i].any() for i, a in enumerate(actions))  # none: ended, reset next
        legal += len(actions)
        _, _, _, _, info = envs.step(actions)
    envs.close()
    env = gym.make("bridgerl/CompetitiveBidding-v0", dataset="test")
    _, info = env.reset(seed=1)
    for _ in range(30):
        action = env.action_space.sample()
        assert info["action_mask"][action]
        _, _, done, _, info = env.step(action)
        if done:
            _, info = env.reset()
    assert legal == 240


@pytest.mark.parametrize("module", ["competitive_bidding_v0", "bridge_v0"])
def test_pettingzoo_envs_pickle_mid_episode_and_refuse_unknown_reset_options(module):
    import importlib

    env_module = importlib.import_module(f"bridgerl.envs.pettingzoo.{module}")
    env = env_module.env(dataset="test")
    env.reset(seed=1)
    rng = np.random.default_rng(0)

    def play(one, steps):
        seen = []
        for _ in range(steps):
            observation, reward, termination, truncation, _ = one.last()
            action = None if termination else int(rng.choice(np.flatnonzero(observation["action_mask"])))
            seen.append((one.agent_selection, observation["observation"].tobytes(), reward))
            one.step(action)
            if not one.agents:
                break
        return seen

    play(env, 5)
    for copy_of in (lambda x: pickle.loads(pickle.dumps(x)), copy.deepcopy):
        twin = copy_of(env)
        rng = np.random.default_rng(7)
        ours = play(env, 6)
        rng = np.random.default_rng(7)
        assert play(twin, 6) == ours
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['indx'\]"):
        env.reset(options={"indx": 3})
    env.reset(options={"options": 1, "index": 3})  # api_test's key is ignored, the known one kept
    assert env.unwrapped.deal.index == 3 if module == "competitive_bidding_v0" else \
        env.unwrapped.state.deal.index == 3


def test_action_masks_through_wrappers():
    """sb3-contrib reads ``action_masks()``; through Gymnasium's wrappers it is ``get_wrapper_attr``."""
    env = gym.make("bridgerl/Bridge-v0", dataset="test")
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.action_masks()
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        masks = env.get_wrapper_attr("action_masks")()
        assert masks.dtype == np.int8 and np.array_equal(masks, info["action_mask"])
        _, _, done, _, info = env.step(_action(info, rng))
        if done:
            _, info = env.reset()


def test_info_view_false_leaves_the_view_out_and_keeps_the_observation():
    with_view = gym.make("bridgerl/Bridge-v0", dataset="test").unwrapped
    without = gym.make("bridgerl/Bridge-v0", dataset="test", info_view=False).unwrapped
    rng = np.random.default_rng(2)
    for seed in range(6):
        a_obs, a_info = with_view.reset(seed=seed)
        b_obs, b_info = without.reset(seed=seed)
        done = False
        while not done:
            # the bits kept up to date call by call and card by card are the rules module's observation
            assert np.array_equal(a_obs, b_obs) and np.array_equal(b_obs, without.state.observation())
            assert "view" not in b_info
            assert {k: v for k, v in a_info.items() if k not in ("view", "action_mask")} == \
                {k: v for k, v in b_info.items() if k != "action_mask"}
            action = _action(a_info, rng)
            a_obs, _, done, _, a_info = with_view.step(action)
            b_obs, _, _, _, b_info = without.step(action)


# -- OpenSpiel ---------------------------------------------------------------------------------------------------
def _deal(state, rng):
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(actions, p=probs)))


# the uncontested game in the slow tier (CI runs it; docs/conventions.md): ISMCTS on the competitive bidding game (the
# other bidding game whose resampled deals DDS scores) and the uncontested game's resamples below stay in the default
@pytest.mark.parametrize("name,params,deals", [pytest.param("bridgerl_uncontested_bidding", {"dataset": "test"}, 1,
                                                            marks=pytest.mark.slow),
                                               ("bridgerl_competitive_bidding", {"dataset": "test"}, 1),
                                               ("bridgerl_card_play", {"dataset": "test"}, 2),
                                               ("bridgerl_bridge", {"dataset": "test"}, 1),
                                               ("bridgerl_bridge", {"dataset": "test", "play": "double_dummy"}, 2)],
                         ids=["uncontested", "competitive", "card_play", "bridge", "bridge-double_dummy"])
def test_ismcts_plays_whole_deals_with_its_defaults(name, params, deals):
    """ISMCTS on all four games (the bidding games' resampled deals are scored with DDS at the end)."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=3,
                           random_state=rng)
    for _ in range(deals):
        state = game.new_initial_state()
        _deal(state, rng)
        moves = 0
        while not state.is_terminal():
            state.apply_action(bot.step(state))  # ISMCTS asserts each resample keeps the player's information state
            moves += 1
        returns = state.returns()
        assert moves > 0 and len(returns) == game.num_players()
        if game.num_players() == 4:
            assert sum(returns) == 0 and returns[0] == returns[2]
        else:  # uncontested: one side, identical utility
            assert returns[0] == returns[1] <= 0


def test_resampled_auctions_keep_what_the_bidder_knows():
    """The bidding games' resamples keep the player's hand, the board and every call; the hidden cards change, and
    under the opening rules the partner's opening call stays legal for its new hand."""
    from bridgerl.core.dd import solve_dd_table
    from bridgerl.core.uncontested import can_make_anything, opening_action_mask, thesis_side

    uncontested = pyspiel.load_game("bridgerl_uncontested_bidding", {"dataset": "test"})
    for row in range(40):
        state = uncontested.new_initial_state()
        for action in uncontested.deal_actions(int(uncontested.row_dealer.rows[row])):
            state.apply_action(action)
        first = state.legal_actions()[-1 if row % 2 else 0]  # the first bidder's highest or lowest legal call
        state.apply_action(first)
        if not state.is_terminal():
            break
    assert state.current_player() == 1
    opener = state.seat_of(0)
    worlds = [state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)) for seed in range(5)]
    for world in worlds:
        assert world.information_state_string(1) == state.information_state_string(1)
        assert world.information_state_tensor(1) == state.information_state_tensor(1)
        assert np.array_equal(world.deal.owner == state.seat_of(1), state.deal.owner == state.seat_of(1))
        assert opening_action_mask(world.deal.owner, opener)[first]  # the opener's call is legal with its new hand
        assert world.deal.side == state.deal.side and world.deal.vulnerable == state.deal.vulnerable
        table = solve_dd_table(world.deal.owner)  # the thesis side rule deals this board to this side
        assert world.deal.dd is None or np.array_equal(world.deal.dd, table)  # None: DDS solves it if scored
        assert thesis_side(table) == state.deal.side
        assert can_make_anything(table)
    assert len({world.deal.owner.tobytes() for world in worlds}) > 1
    again = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0, 0.0, 1.0))
    assert np.array_equal(again.deal.owner, worlds[0].deal.owner)

    competitive = pyspiel.load_game("bridgerl_competitive_bidding", {"dataset": "test"})
    state = competitive.new_initial_state()
    for action in competitive.deal_actions(5):
        state.apply_action(action)
    for call in (0, 3 + 4):  # Pass, 1NT
        state.apply_action(call)
    player = state.current_player()
    worlds = [state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0))
              for seed in range(4)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.information_state_tensor(player) == state.information_state_tensor(player)
        assert world.auction.calls == state.auction.calls and world.legal_actions() == state.legal_actions()
        assert np.array_equal(world.deal.owner == player, state.deal.owner == player)
    assert len({world.deal.owner.tobytes() for world in worlds}) > 1


# West holds the top three of every suit and leads the ace of spades or of hearts first; everyone follows low. After
# both tricks the observations are the same (the same cards gone from each seat, no trick in progress, West's side
# two tricks), but the order of the tricks differs.
_TWO_ACES = "W:AKQ.AKQ.AKQ.AKQJ J109.J109.J109.T987 876.876.876.6543 5432.5432.5432.2"
_TRICKS = (["SA", "S9", "S6", "S2"], ["HA", "H9", "H6", "H2"])


def _two_orders(state, offset: int):
    from bridgerl.core.cards import parse_card

    states = []
    for order in (_TRICKS, _TRICKS[::-1]):
        copy_ = state.clone()
        for card in order[0] + order[1]:
            copy_.apply_action(offset + parse_card(card))
        states.append(copy_)
    return states


@pytest.mark.parametrize("name", ["bridgerl_card_play", "bridgerl_bridge"])
def test_information_state_tensor_is_perfect_recall(name, tmp_path):
    """Card play and the whole deal declare an information-state tensor, and it is perfect recall: two histories
    with the same observation but tricks played in another order differ in it (and it records the player's hand,
    the auction, dummy and each card with who played it)."""
    from bridgerl.core.cards import parse_card
    from bridgerl.core.pbn import parse_deal_option

    if name == "bridgerl_card_play":
        game = pyspiel.load_game(name, {"deal": _TWO_ACES, "contract": "1NT", "declarer": "S", "rotate": False})
        state, offset = game.new_initial_state(), 0
        size = 3036
    else:
        owner = parse_deal_option(_TWO_ACES)[0]
        from bridgerl.core.dd import solve_dd_table

        save_dataset(tmp_path / "deal.npz", make_dataset(owner[None], solve_dd_table(owner)[None], [1]))
        game = pyspiel.load_game(name, {"dataset": str(tmp_path / "deal.npz"), "dealer": 2})
        state, offset = game.new_initial_state(), 38
        for action in game.deal_actions(0):
            state.apply_action(action)
        for call in (3 + 4, 0, 0, 0):  # South 1NT, all pass: West leads
            state.apply_action(call)
        size = 3219
    assert game.get_type().provides_information_state_tensor
    assert game.information_state_tensor_shape() == [size]
    first, second = _two_orders(state, offset)
    for player in range(4):
        assert first.observation_tensor(player) == second.observation_tensor(player)
        assert first.information_state_tensor(player) != second.information_state_tensor(player)
        tensor = np.asarray(first.information_state_tensor(player))
        owner, _ = _owner_and_play(first)
        assert np.array_equal(tensor[-52:], owner == player)  # the player's own 13 cards as dealt
        assert np.array_equal(tensor[-52 - 52 * 56 - 52:-52 - 52 * 56], owner == 0)  # dummy (North), shown
    # slot k of the play: the k-th card and the seat it came from (West, North = dummy, East, South)
    tensor = np.asarray(first.information_state_tensor(3)).reshape(-1)
    play = tensor[-52 - 52 * 56:-52].reshape(52, 56)
    for k, card in enumerate(_TRICKS[0] + _TRICKS[1]):
        assert play[k, parse_card(card)] == 1 and play[k, 52 + (3 + k) % 4] == 1 and play[k].sum() == 2
    assert not play[8:].any()


def _owner_and_play(state):
    """(the deal's owner array, its `PlayState` or None) of a card-play or whole-deal OpenSpiel state."""
    if hasattr(state, "play_state"):
        return state.play_state.owner, state.play_state
    return state.bridge.deal.owner, state.bridge.play


def _check_resamples(state, seed: int) -> None:
    player = state.current_player()
    _, play = _owner_and_play(state)
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    worlds = [state.resample_from_infostate(player, sampler) for _ in range(6)]
    for world in worlds:
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.legal_actions() == state.legal_actions()
        owner, world_play = _owner_and_play(world)
        assert np.array_equal(owner == player, _owner_and_play(state)[0] == player)  # its own 13 cards
        if play is not None:
            assert world_play.history == play.history and world_play.hands[player] == play.hands[player]
            for seat, suit in zip(*np.nonzero(play.shown_voids())):
                assert not (world_play.hands[seat] >> (13 * suit)) & 0x1FFF  # a void shown stays void
            if play.dummy_visible:
                assert world_play.hands[play.dummy] == play.hands[play.dummy]
    assert len({_owner_and_play(world)[0].tobytes() for world in worlds}) > 1  # the hidden cards dealt afresh
    again = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0))
    assert np.array_equal(_owner_and_play(again)[0], _owner_and_play(worlds[0])[0])  # same sampler, same world


@pytest.mark.parametrize("name", ["bridgerl_card_play", "bridgerl_bridge"])
def test_resampled_worlds_keep_what_the_player_knows(name):
    """Worlds keep the player's hand, dummy's once shown, every card played and every void shown; they differ in
    the hidden cards, and a seeded sampler repeats them."""
    game = pyspiel.load_game(name, {"dataset": "test"})
    state = game.new_initial_state()
    for action in game.deal_actions(11):
        state.apply_action(action)
    script = [7, 0, 17, 0, 0, 0] if name == "bridgerl_bridge" else []  # 1NT P 3NT P P P
    checks = {2, len(script), len(script) + 1, len(script) + 6, len(script) + 23, len(script) + 40}
    rng = np.random.default_rng(4)
    for step in range(len(script) + 41):
        if step in checks:
            _check_resamples(state, step)
        state.apply_action(script[step] if step < len(script) else int(rng.choice(state.legal_actions())))


def test_a_resampled_whole_deal_is_scored_with_its_own_double_dummy_result():
    game = pyspiel.load_game("bridgerl_bridge", {"dataset": "test", "play": "double_dummy", "reward": "par_imps"})
    state = game.new_initial_state()
    for action in game.deal_actions(8):
        state.apply_action(action)
    for call in (3 + 14, 0, 0):  # 3NT, pass, pass
        state.apply_action(call)
    world = state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))
    world.apply_action(0)
    state.apply_action(0)
    from bridgerl.core.dd import solve_dd_table
    from bridgerl.core.par import par_score

    deal = world.bridge.deal
    table = solve_dd_table(deal.owner)
    assert world.result.tricks == table[world.result.contract.declarer, 4]
    assert world.result.par_ns == par_score(table, deal.vul, deal.dealer)
    assert state.result.tricks == int(load_dataset("test").dd[8, state.result.contract.declarer, 4])


def test_deal_chance_nodes_do_not_grow_with_the_dataset(tmp_path):
    train = load_dataset("train")
    rows = 100_000
    take = np.arange(rows) % len(train)
    path = tmp_path / "big.npz"
    save_dataset(path, make_dataset(train.owner[take], train.dd[take]))
    for name in bridgerl.envs.openspiel.GAMES:
        game = pyspiel.load_game(name, {"dataset": str(path)})
        state = game.new_initial_state()
        listed = 0
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            listed += len(outcomes)
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
            state.apply_action(outcomes[-1][0])
        assert listed <= 316 + 4 * 317, name  # 316 blocks of 317 rows (times 4 turns of the card-play table)
    # every row has probability 1 / N, and deal_actions starts at any row
    dealer = RowDealer(np.arange(10))
    assert (dealer.block_size, dealer.num_blocks) == (4, 3)
    chances = {}
    for block, p_block in dealer.outcomes(None):
        for row, p_row in dealer.outcomes(block):
            chances[row] = p_block * p_row
    assert sorted(chances) == list(range(10)) and np.allclose(list(chances.values()), 0.1)
    game = pyspiel.load_game("bridgerl_competitive_bidding", {"dataset": str(path)})
    state = game.new_initial_state()
    for action in game.deal_actions(99_999):
        state.apply_action(action)
    assert np.array_equal(state.deal.owner, train.owner[99_999 % len(train)])
    with pytest.raises(ValueError, match="row 100000 is not one this game deals"):
        game.deal_actions(100_000)
    # the uncontested game deals only the rows its side rule allows
    uncontested = pyspiel.load_game("bridgerl_uncontested_bidding", {"dataset": "test"})
    allowed = uncontested.row_dealer.rows
    skipped = next(row for row in range(len(allowed) + 1) if row not in set(allowed.tolist()))
    with pytest.raises(ValueError, match=f"row {skipped} is not one this game deals"):
        uncontested.deal_actions(skipped)


def test_play_state_fast_paths_match_the_rules():
    """`PlayState.play` and the bridge state's lists of legal actions agree with the masks on random play."""
    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDealSource

    source = CompetitiveDealSource(load_dataset("test"))
    rng = np.random.default_rng(0)
    for row in range(40):
        state = BridgeState.start(source.deal_at(row))
        while not state.is_over:
            legal = state.legal_actions()
            assert legal == np.flatnonzero(state.legal_mask()).tolist()
            state = state.apply(legal[rng.integers(len(legal))])
        assert state.legal_actions() == [] and not state.legal_mask().any()
        if state.play is not None:
            replayed = PlayState.start(state.deal.owner, state.contract, state.play.history)
            assert replayed == state.play and replayed.declarer_tricks == state.play.declarer_tricks
