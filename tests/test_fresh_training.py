"""PPO on fresh deals (issue #51, `train competitive --algo ppo --data fresh`): every finished auction's reward is
the duplicate IMPs of its deal played out against the same deal bid greedily by the reference at a second table and
played out (both replayed here in the Python whole deal with the numpy card player), in batches over the finished
auctions only; a tiny run is seeded and resumable; the options are checked in one line."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.agents import PPOAgent
from bridgerl.agents.learned.card_player import CardPlayer
from bridgerl.cli import main
from bridgerl.core.board import VULS
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.competitive import CompetitiveDeal
from bridgerl.core.imps import imps
from bridgerl.envs import jaxenv
from bridgerl.training.ppo import REFERENCE_CALLS, PPOConfig, PPOTrainer
from helper_games import collect_rollout, ended_auctions
from test_played import ROWS, played_file, player_path  # noqa: F401  (module fixtures)
from test_ppo import TINY


def _played(state: BridgeState, player) -> BridgeState:
    while state.phase == "play":
        state = state.apply(CARD_OFFSET + player.act(state.view()))
    return state


def _reference_table(deal: CompetitiveDeal, trainer: PPOTrainer, params, player) -> BridgeState:
    """The second table in Python: the reference network greedy at every seat (at most REFERENCE_CALLS calls, then
    passes), played out by the numpy card player."""
    state = BridgeState.start(deal)
    calls = 0
    while state.phase == "auction":
        if calls < REFERENCE_CALLS:
            logits = np.asarray(trainer.policy_value(params, state.auction_observation()[None])[0][0])
            call = int(np.argmax(np.where(state.auction.legal_mask(), logits, -1e9)))
        else:
            call = 0
        state = state.apply(call)
        calls += 1
    return _played(state, player)


def _replayed(rollout, rewards, trainer, reference, player):
    """(t, b, the learner's table played, the swing) for every finished auction of a fresh rollout, both tables
    replayed in Python: the rollout's calls, and ``reference`` greedy at the second table."""
    for t, b, calls in ended_auctions(rollout, rewards):
        ended = jax.tree.map(lambda a: np.asarray(a)[t, b], rollout.ended)
        deal = CompetitiveDeal(ended["owner"], None, int(ended["dealer"]), VULS[int(ended["vulnerable"])], 1, None)
        state = BridgeState.start(deal)
        for call in calls:
            state = state.apply(call)
        first = _played(state, player)
        second = _reference_table(deal, trainer, reference, player)
        yield t, b, first, imps(first.result().score_ns - second.result().score_ns)


def test_fresh_rewards_are_the_two_tables_played_out(player_path):  # noqa: F811
    player = CardPlayer.load(player_path)
    env = jaxenv.make("competitive_bidding", dataset="fresh", player=player, play_in_step=False)
    config = PPOConfig(**{**TINY, "pool_size": 0, "rollout": 24, "fresh_chunk": 3})
    trainer = PPOTrainer(env, config, seed=4, card_player=player)
    rollout, ts = collect_rollout(trainer, env, trainer.init(env), jax.random.key(2), config.rollout)
    assert not np.asarray(rollout.rewards).any()  # the env leaves the rewards to the trainer
    rewards = np.asarray(jax.jit(trainer._fresh_rewards)(env, rollout, ts))
    checked = contracts = 0
    for t, b, first, swing in _replayed(rollout, rewards, trainer, ts.params, player):
        np.testing.assert_array_equal(rewards[t, b], [swing, -swing, swing, -swing])
        contracts += first.contract is not None
        checked += 1
    assert checked > 3 * config.fresh_chunk and contracts >= 3  # several batches of the while loop


def test_fresh_settings_are_checked(player_path):  # noqa: F811
    player = CardPlayer.load(player_path)
    fresh = jaxenv.make("competitive_bidding", dataset="fresh", player=player, play_in_step=False)
    cases = [(jaxenv.make("competitive_bidding", dataset="fresh", player=player), {}, "play_in_step=False"),
             (fresh, {"playout": True}, "always played out"), (fresh, {"pool_priority": 1.0}, "pool_priority"),
             (fresh, {"fresh_reference": "anchor", "pool_size": 0}, "pool_anchor"),
             (fresh, {"fresh_reference": "teacher"}, "'self' or 'anchor'")]
    for env, changes, message in cases:
        with pytest.raises(ValueError, match=message):
            PPOTrainer(env, PPOConfig(**{**TINY, **changes}), card_player=player)
    with pytest.raises(ValueError, match="learned card player"):
        PPOTrainer(fresh, PPOConfig(**TINY))


# the slow tier (CI runs it; docs/conventions.md): the fresh rewards' replay and the trainer's checks above, and the
# command's refusals below, stay in the default tier
@pytest.mark.slow
def test_train_competitive_on_fresh_deals_is_seeded_and_resumable(played_file, tmp_path, capsys):  # noqa: F811
    common = ["train", "competitive", "--algo", "ppo", "--data", "fresh", "--tricks", "played", "--eval-data",
              str(played_file), "--eval-deals", str(ROWS), "--num-envs", "8", "--rollout", "8", "--minibatches", "2",
              "--epochs", "1", "--hidden", "16", "--pool-size", "2", "--pool-every", "1", "--quiet", "--seed", "3"]
    assert main(common + ["--steps", "128", "--out", str(tmp_path / "whole")]) == 0
    assert main(common + ["--steps", "64", "--out", str(tmp_path / "split")]) == 0
    assert main(common + ["--steps", "128", "--out", str(tmp_path / "split"), "--resume"]) == 0
    a, b = PPOAgent.load(tmp_path / "whole"), PPOAgent.load(tmp_path / "split")
    for x, y in zip(jax.tree.leaves(a._params), jax.tree.leaves(b._params)):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    # the run trained (equal parameters above would also hold for two runs that did nothing)
    start = PPOAgent.load(tmp_path / "whole" / "snapshots" / "model-0000000000.msgpack")
    assert any(not np.array_equal(np.asarray(x), np.asarray(y))
               for x, y in zip(jax.tree.leaves(start._params), jax.tree.leaves(a._params)))
    assert a.metadata["data"].startswith("fresh: deals drawn inside jit") and a.metadata["seed"] == 3
    assert a.metadata["played_by"]["player"] == str(player_path_of(played_file))


def test_fresh_deals_need_ppo_and_played_tricks(played_file, tmp_path, capsys):  # noqa: F811
    bare = ["train", "competitive", "--data", "fresh", "--eval-data", str(played_file), "--eval-deals", "4",
            "--steps", "64", "--quiet", "--out", str(tmp_path / "bad")]
    for extra, message in ((["--algo", "ppo"], "give --tricks played"), (["--tricks", "played"], "trains PPO")):
        assert main(bare + extra) == 2
        assert message in capsys.readouterr().err


def player_path_of(played_file) -> str:
    with np.load(played_file) as npz:
        return str(npz["played_player"])


# the slow tier (CI runs it; docs/conventions.md): the fresh rewards' replay stays in the default tier
@pytest.mark.slow
def test_small_rollouts_anchor_reference_and_pool_statistics(player_path):  # noqa: F811
    """A rollout of fewer rows than a chunk works (the second-table deals are padded by a whole chunk); with
    ``fresh_reference="anchor"`` the second table is bid by the pool's slot 0 (the starting network), not by the
    network as it stands; the logged IMPs against the pool come from the played rewards."""
    player = CardPlayer.load(player_path)
    env = jaxenv.make("competitive_bidding", dataset="fresh", player=player, play_in_step=False)
    small = PPOConfig(**{**TINY, "num_envs": 4, "rollout": 8, "minibatches": 2, "pool_size": 2, "pool_anchor": True,
                         "pool_prob": 1.0, "fresh_reference": "anchor"})
    trainer = PPOTrainer(env, small, seed=5, card_player=player)
    ts = trainer.init(env)
    ts, metrics = trainer.run_steps(env, ts, 3)
    assert np.isfinite(np.asarray(metrics.loss)).all() and int(np.asarray(metrics.pool_episodes).sum()) > 0
    # the anchor differs from the trained network: the reference bids with slot 0's parameters
    ts = ts.replace(env_state=jax.vmap(env.init)(jax.random.split(jax.random.key(8), small.num_envs)),
                    opponent=jnp.zeros(small.num_envs, jnp.int32))  # new auctions, every one against the anchor
    rollout, after = collect_rollout(trainer, env, ts, jax.random.key(9), 24)
    anchor = jax.tree.map(lambda p: p[0], after.pool)
    assert any(not np.array_equal(np.asarray(x), np.asarray(y))
               for x, y in zip(jax.tree.leaves(anchor), jax.tree.leaves(after.params)))
    rewards = np.asarray(jax.jit(trainer._fresh_rewards)(env, rollout, after))
    assert rollout.done.sum() >= 4
    for t, b, _, swing in _replayed(rollout, rewards, trainer, anchor, player):
        assert rewards[t, b, 0] == swing


def test_the_teacher_clone_is_the_same_whatever_bids_the_second_table(played_file, tmp_path):  # noqa: F811
    """The run's starting network (the teacher cloned from its demonstrations) is built exactly as `train` builds
    it, once with ``fresh_reference="self"`` and once with ``"anchor"``: bit-identical (the setting only says who
    bids the second table once the RL starts), and moved away from the untrained network by the cloning."""
    from bridgerl.training import run as runs
    from test_ppo import TINY_PRETRAIN

    clones = []
    for reference in ("self", "anchor"):
        run = runs.RunConfig(out=tmp_path / reference, env_id=runs.COMPETITIVE_ENV_ID, algo="ppo", seed=3,
                             data="fresh", eval_data=played_file, pretrain_data=played_file, pretrain=TINY_PRETRAIN,
                             env_options={"tricks": "played"}, evaluate_agent=lambda agent: {},
                             overrides={**TINY, "pool_size": 2, "pool_anchor": True, "fresh_reference": reference})
        recipe, _, config, steps = runs._algorithm(run)
        options = dict(run.env_options)
        data = runs._datasets(run, recipe, options)
        env, _, _ = runs._envs(run, data, options)
        _, demos = runs._teacher(run, recipe, config, data, options, resuming=False)
        trainer, ts, stats = runs._trainer(run, recipe, config, steps, env, data, demos, None, resuming=False)
        assert stats["demonstration_calls"] == len(demos.action) > 0
        clones.append([np.asarray(leaf) for leaf in jax.tree.leaves(ts.params)])
        untrained = [np.asarray(leaf) for leaf in jax.tree.leaves(trainer.init(env).params)]
    assert all(np.array_equal(a, b) for a, b in zip(*clones))
    assert any(not np.array_equal(a, b) for a, b in zip(clones[1], untrained))
