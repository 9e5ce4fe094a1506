"""All-call targets and the centralised critic of uncontested training (issue #21): the exact value of every call
on hand-built auctions, the regression targets against a hand computation, the actor's inputs, and resume."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.agents.learned.dqn import DQNAgent
from bridgerl.core import make_dataset
from bridgerl.core.illegal import ILLEGAL_PENALTY
from bridgerl.envs import jaxenv
from bridgerl.training.dqn import DQNConfig, DQNTrainer
from bridgerl.training.run import train_uncontested

# bids are indexed level-major (1C=0 ... 1NT=4, 2C=5 ...); action = bid + 1
PASS, ONE_HEART, THREE_NT, FOUR_HEARTS, FOUR_SPADES, FIVE_HEARTS, SIX_HEARTS = 0, 3, 15, 18, 19, 23, 28


def _hand_built_env():
    """One deal, board 1 (nobody vulnerable), whose DD table we write by hand: North and South take 10 tricks in
    hearts, 9 in notrump, 8 in spades, 7 in the minors; East-West take the rest. Constructive par: 4H, +420."""
    owner = np.repeat(np.arange(4), 13)  # any legal deal: the targets read only the DD table
    dd = np.zeros((1, 4, 5), np.uint8)
    for seat in (0, 2):
        dd[0, seat] = [7, 7, 10, 8, 9]   # C D H S NT
    for seat in (1, 3):
        dd[0, seat] = 13 - dd[0, 0]
    dataset = make_dataset(owner[None], dd, np.array([1]))
    return jaxenv.make("uncontested_bidding", dataset=dataset, opening_rules=False)


def test_call_outcomes_on_a_hand_built_auction():
    env = _hand_built_env()
    state = env.init(jax.random.PRNGKey(0), 0)
    assert int(state.current_player) == 0 and int(state._par) == 420
    first = env.call_outcomes(state)
    assert not bool(first.pass_ends)  # an initial pass hands the opening to South
    assert float(first.after_pass[PASS]) == -9.0  # ... who passes it out: 0 - 420 = -420, 9 IMPs
    state = env.step(state, ONE_HEART)  # North opens 1H; South to act
    outcomes = env.call_outcomes(state)
    expected = {
        PASS: -6.0,          # 1H by North, 10 tricks: +170, 250 below par
        FOUR_HEARTS: 0.0,    # 4H by North (who named hearts first): +420 = par
        THREE_NT: -1.0,      # 3NT by South, 9 tricks: +400, 20 below
        FOUR_SPADES: -12.0,  # 4S by South, 8 tricks: down 2, doubled (thesis 4.4.3), -300: 720 below
        FIVE_HEARTS: -10.0,  # 5H by North, down 1: -50, 470 below
        SIX_HEARTS: -12.0,   # 6H by North, down 2 doubled: -300
    }
    assert bool(outcomes.pass_ends) and float(outcomes.end_value) == expected[PASS]
    for action, value in expected.items():
        if action != PASS:
            assert float(outcomes.after_pass[action]) == value, action
    assert np.asarray(outcomes.partner_hand).sum() == 13
    assert (np.asarray(outcomes.partner_hand) == (np.repeat(np.arange(4), 13) == 0)).all()  # North's cards


def test_call_outcomes_and_partner_views_follow_the_env():
    """Against the env itself on sampled auctions: the partner's observation and legal calls after every call, and
    the reward when the partner then passes."""
    from bridgerl.envs.jaxenv.uncontested import partner_masks, partner_observations

    env = jaxenv.make("uncontested_bidding", dataset="test")
    step = jax.jit(env.step)
    rng = np.random.default_rng(0)
    checked = 0
    for episode in range(12):
        state = env.init(jax.random.PRNGKey(episode))
        while not bool(state.terminated):
            outcomes = env.call_outcomes(state)
            seat = int(state.current_player)
            views = np.asarray(partner_observations(state.observation, outcomes.partner_hand))
            masks = np.asarray(partner_masks(outcomes.pass_next_mask))
            for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
                after = step(state, action)
                if action == PASS and bool(outcomes.pass_ends):
                    assert bool(after.terminated) and float(after.rewards[seat]) == float(outcomes.end_value)
                    continue
                assert (np.asarray(after.observation) == views[action]).all()
                assert (np.asarray(after.legal_action_mask) == masks[action]).all()
                if masks[action][PASS]:
                    assert float(step(after, PASS).rewards[seat]) == float(outcomes.after_pass[action])
                    checked += 1
                else:  # the partner must open (thesis 4.4.5): a pass would be illegal and end the game, penalised
                    assert float(step(after, PASS).rewards[seat]) == -ILLEGAL_PENALTY["imps"]
            legal = np.flatnonzero(np.asarray(state.legal_action_mask))
            state = step(state, legal[min(len(legal) - 1, int(rng.integers(0, 4)))])
    assert checked > 100


@pytest.mark.parametrize("critic", [False, True])
def test_all_call_targets_equal_a_hand_computation(critic):
    """With a network whose values we fix by hand (the partner prefers 4S, worth 5, when it is legal, else pass), every
    call's target is: pass (which ends the auction) its exact value; a call below 4S the partner's 4S value; 4S
    and above the exact value of the contract, as the partner can then only pass (or prefers to)."""
    env = _hand_built_env()
    trainer = DQNTrainer(env, DQNConfig(hidden=(8,), num_envs=1, targets="all", critic=critic), seed=0)
    fixed = jnp.full(36, -1.0).at[FOUR_SPADES].set(5.0).at[PASS].set(-0.5)
    trainer.q_values = lambda params, obs: jnp.broadcast_to(fixed, obs.shape[:-1] + (36,))
    if critic:  # the critic's values are the bootstrap: fix them too, and differently
        trainer.critic_values = lambda params, obs, hands: jnp.broadcast_to(fixed * 2, obs.shape[:-1] + (36,))
    state = env.step(env.init(jax.random.PRNGKey(0), 0), ONE_HEART)
    batch = trainer._call_targets(jax.tree.map(lambda leaf: leaf[None], state))
    target = np.asarray(trainer.all_call_targets(None, None, batch))[0]
    outcomes = env.call_outcomes(state)
    bootstrap = 10.0 if critic else 5.0
    for action in np.flatnonzero(np.asarray(state.legal_action_mask)):
        if action == PASS:
            want = float(outcomes.end_value)
        elif action < FOUR_SPADES:
            want = bootstrap
        else:
            want = float(outcomes.after_pass[action])
        assert target[action] == want, action
    assert target[FOUR_HEARTS] == bootstrap and target[FIVE_HEARTS] == -10.0 and target[PASS] == -6.0


def test_the_actor_never_receives_the_partners_cards():
    """Deals that differ only in how the other three hands are shared give the acting network the same input and
    the same calls; the critic, which sees the partner's cards, tells them apart."""
    env = jaxenv.make("uncontested_bidding", dataset="test")
    trainer = DQNTrainer(env, DQNConfig(hidden=(16,), num_envs=64, targets="all", critic=True), seed=0)
    ts = trainer.init(env)
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(3), 64))
    seat = np.asarray(state.current_player)
    owner = np.asarray(state._owner).copy()
    partner, opponent = (seat + 2) % 4, (seat + 1) % 4
    swapped = owner.copy()  # partner's and the left-hand opponent's cards change hands
    swapped[owner == partner[:, None]] = np.repeat(opponent, 13)
    swapped[owner == opponent[:, None]] = np.repeat(partner, 13)
    other = state.replace(_owner=jnp.asarray(swapped))
    from bridgerl.envs.jaxenv.uncontested import _refresh

    other = jax.vmap(_refresh)(other)
    assert (np.asarray(other.observation) == np.asarray(state.observation)).all()
    key = jax.random.PRNGKey(0)
    for epsilon in (0.0, 0.3):
        acts = [np.asarray(trainer._act(ts, s, key, epsilon)) for s in (state, other)]
        assert (acts[0] == acts[1]).all()
    rows, rows_other = trainer._call_targets(state), trainer._call_targets(other)
    assert (np.asarray(rows.obs) == np.asarray(rows_other.obs)).all()
    assert not (np.asarray(rows.partner_hand) == np.asarray(rows_other.partner_hand)).all()
    critic = np.asarray(trainer.critic_values(ts.critic, rows.obs, rows.partner_hand))
    critic_other = np.asarray(trainer.critic_values(ts.critic, rows_other.obs, rows_other.partner_hand))
    assert np.abs(critic - critic_other).max() > 1e-4
    # the released network's input is the 89-bit observation; the critic's adds the partner's 52 cards
    first_actor = jax.tree.leaves(ts.params)
    first_critic = jax.tree.leaves(ts.critic)
    assert {89} <= {leaf.shape[0] for leaf in first_actor if leaf.ndim == 2}
    assert 89 + 52 not in {leaf.shape[0] for leaf in first_actor if leaf.ndim == 2}
    assert 89 + 52 in {leaf.shape[0] for leaf in first_critic if leaf.ndim == 2}


def test_all_call_settings_are_checked():
    env = jaxenv.make("uncontested_bidding", dataset="test")
    with pytest.raises(ValueError, match="need targets='all'"):
        DQNTrainer(env, DQNConfig(hidden=(8,), critic=True))
    with pytest.raises(ValueError, match="need targets='all'"):
        DQNTrainer(env, DQNConfig(hidden=(8,), aux_weight=1.0))
    with pytest.raises(ValueError, match="targets must be"):
        DQNTrainer(env, DQNConfig(hidden=(8,), targets="every"))
    competitive = jaxenv.make("competitive_bidding", dataset="test")
    with pytest.raises(ValueError, match="uncontested env"):
        DQNTrainer(competitive, DQNConfig(hidden=(8,), targets="all"), self_play=True)


# the slow tier (CI runs it; docs/conventions.md): the targets' own tests above, the other trainers' resumes, the
# search's and the curve's own tests stay in the default tier
@pytest.mark.slow
def test_all_call_training_resumes_bit_identically(tmp_path):
    overrides = {"hidden": (16,), "num_envs": 16, "min_replay": 64, "replay_size": 4000, "targets": "all",
                 "critic": True, "batch_size": 32}
    kwargs = dict(preset="small", data="test", eval_data="test", overrides=overrides, chunk=25, progress=False,
                  command="pytest")
    whole = train_uncontested(tmp_path / "whole", steps=1600, **kwargs)
    train_uncontested(tmp_path / "half", steps=800, **kwargs)
    resumed = train_uncontested(tmp_path / "half", steps=1600, resume=True, **kwargs)
    assert resumed["imps_per_deal"] == whole["imps_per_deal"] and np.isfinite(whole["imps_per_deal"])
    a, b = DQNAgent.load(tmp_path / "whole"), DQNAgent.load(tmp_path / "half")
    for x, y in zip(jax.tree.leaves(a._params), jax.tree.leaves(b._params)):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    assert a.metadata["observation_size"] == 89 and a.metadata["config"]["critic"] is True
    # the critic is saved beside the network, for decision-time search (`search:RUN`)
    from bridgerl.arena.specs import load_agent

    search = load_agent(f"search:{tmp_path / 'whole'},samples=64,min_kept=1")
    obs = np.zeros(89, np.int8)
    obs[37:50] = 1
    assert search.act(obs, np.ones(36, bool)) in range(36) and search.kept == [64]
    # the learning curve of an uncontested run (`bridgerl evaluate curve`)
    from bridgerl.evaluation.reports.learning_curve import plot_curves, read_curve

    curve = read_curve(tmp_path / "whole")
    assert curve["key"] == "imps_per_deal" and curve["imps"][-1] == whole["imps_per_deal"]
    png = plot_curves({"whole": tmp_path / "whole", "half": tmp_path / "half"}, tmp_path / "curve.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="config.critic"):
        train_uncontested(tmp_path / "half", steps=1600, resume=True,
                          **{**kwargs, "overrides": {**overrides, "critic": False}})


def test_auxiliary_targets_and_the_saved_network(tmp_path):
    """The auxiliary heads' targets by hand (partner's HCP, suit lengths, the side's DD tricks), and a run with them
    saves the Q-network alone, which loads and bids as any DQN."""
    from bridgerl.training.dqn import auxiliary_targets

    hand = np.zeros(52, np.int8)
    hand[[12, 25, 38, 51, 11, 0, 1]] = 1  # four aces, the club king, the club two and three
    values = np.asarray(auxiliary_targets(jnp.asarray(hand), jnp.array([7.0, 7.0, 10.0, 8.0, 9.0])))
    assert np.allclose(values, [19 / 10, 4 / 4, 1 / 4, 1 / 4, 1 / 4, 1, 1, 10 / 7, 8 / 7, 9 / 7])
    overrides = {"hidden": (16,), "num_envs": 16, "min_replay": 64, "replay_size": 4000, "targets": "all",
                 "aux_weight": 0.5, "batch_size": 32}
    result = train_uncontested(tmp_path, preset="small", steps=640, data="test", eval_data="test",
                               overrides=overrides, chunk=20, progress=False, command="pytest")
    agent = DQNAgent.load(tmp_path)
    assert "auxiliary" not in agent._params and np.isfinite(result["imps_per_deal"])
    obs = np.zeros((3, 89), np.int8)
    assert agent.act_batch(obs, np.ones((3, 36), bool)).shape == (3,)


def test_collected_targets_are_those_of_the_networks_at_collection():
    env = jaxenv.make("uncontested_bidding", dataset="test")
    config = DQNConfig(hidden=(16,), num_envs=8, min_replay=10_000, targets="all", critic=True,
                       collect_targets=True)
    trainer = DQNTrainer(env, config, seed=0)
    ts = trainer.init(env)
    after, _ = trainer.run_steps(env, ts, 1)
    rows = jax.tree.map(lambda leaf: leaf[:8], after.replay.data)
    expected = trainer.all_call_targets(ts.params, ts.critic_target, rows)
    assert int(after.replay.size) == 8 and np.allclose(np.asarray(rows.target), np.asarray(expected))
    assert (np.asarray(rows.obs) == np.asarray(ts.env_state.observation)).all()
