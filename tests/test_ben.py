"""``ben:DIR``, BEN's bidding network by file: its encoding against BEN's own inputs (the parity fixture, numbers
written by `benchmarks/ben_parity.py` from BEN's bidder), the call it makes from BEN's outputs, a causal stand-in
of the network's signature through the whole path (a wrong step or seat changes the outputs), one-line refusals,
and the file's SHA-256 in the results' checkpoints. With BEN's own file at $BRIDGERL_BEN_DIR, the full parity."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helper_ben import causal_reference, write_causal_onnx

from bridgerl.agents.learned.ben import BEN_SHA256, BenBidder, choose, encode_view, encode_views
from bridgerl.arena.specs import load_agent, load_identified
from bridgerl.cli import main
from bridgerl.core.auction import Auction
from bridgerl.core.competitive import AuctionView

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = Path(__file__).resolve().parent / "data" / "ben_parity.npz"


def _fixture() -> dict:
    with np.load(FIXTURE) as data:
        return {key: data[key] for key in data.files}


def _views(fixture: dict) -> list[AuctionView]:
    """The caller's view at each of BEN's calls, rebuilt from the fixture's deal, dealer and auction."""
    views = []
    for dealer, hand, we, they, auction in zip(fixture["dealer"], fixture["hand"], fixture["we_vul"],
                                               fixture["they_vul"], fixture["auction"]):
        play = Auction.from_calls(int(dealer), [int(c) for c in auction if c >= 0])
        bits = np.zeros(52, np.int8)
        bits[hand] = 1
        views.append(AuctionView.of(play, bits, bool(we), bool(they)))
    return views


def test_the_encoding_is_bens_input_at_every_call_of_the_fixture():
    fixture = _fixture()
    views = _views(fixture)
    assert len(views) >= 2000 and len(set(fixture["auction_id"].tolist())) == 500
    for row, view in enumerate(views):
        steps = int(fixture["ben_steps"][row])
        ours = encode_view(view)
        assert ours.shape == (steps, 193), (row, ours.shape, steps)
        np.testing.assert_array_equal(ours, fixture["ben_input"][row, :steps], err_msg=f"call {row}: {view}")


def test_bens_outputs_choose_bens_call():
    fixture = _fixture()
    masks = np.stack([v.legal_mask for v in _views(fixture)])
    assert (choose(fixture["ben_probs"], masks) == fixture["ben_call"]).all()
    assert (fixture["ben_call"] >= 0).all() and fixture["ben_probs"].shape[1] == 40


def test_the_fixture_covers_what_the_parity_asks():
    fixture = _fixture()
    first = np.unique(fixture["auction_id"], return_index=True)[1]
    groups = fixture["group"][first]
    assert (groups == "ben4").sum() == 250 and {"rules", "sayc", "release"} <= set(groups.tolist())
    pairs = {(int(d), bool(w), bool(t)) for d, w, t in zip(fixture["dealer"], fixture["we_vul"], fixture["they_vul"])}
    assert {d for d, _, _ in pairs} == {0, 1, 2, 3} and len(pairs) == 16
    doubled = {int(a) for a, auction in zip(fixture["auction_id"], fixture["auction"]) if np.isin(auction, (1, 2)).any()}
    assert len(doubled) >= 20
    assert str(fixture["bidder_sha256"]) == BEN_SHA256


def test_a_causal_stand_in_gives_through_the_bidder_what_it_gives_on_bens_inputs(tmp_path):
    """The whole path (encoding, batching rows of different lengths, the last step, the legal argmax) against the
    stand-in run on BEN's own inputs: a wrong step, seat or feature would change the outputs."""
    write_causal_onnx(tmp_path, seed=3)
    bidder = load_agent(f"ben:{tmp_path}", "competitive_bidding")
    fixture = _fixture()
    rows = np.arange(0, len(fixture["ben_call"]), 7)
    views = [_views({k: v[rows] for k, v in fixture.items() if np.ndim(v) and len(v) == len(fixture["ben_call"])})][0]
    ours = bidder.probabilities(views)
    expected = np.stack([causal_reference(fixture["ben_input"][r, None, :fixture["ben_steps"][r]], seed=3)[0, -1]
                         for r in rows])
    np.testing.assert_allclose(ours, expected, atol=1e-5)
    masks = np.stack([v.legal_mask for v in views])
    assert (np.array([bidder.act_view(v) for v in views[:40]]) == choose(expected, masks)[:40]).all()
    assert len({len(encode_view(v)) for v in views}) >= 3  # rows of several lengths in one batch
    # the env's relative observation (act_batch, as the evaluations call it) encodes as the env's own view
    from bridgerl.envs.competitive import CompetitiveBiddingEnv

    env = CompetitiveBiddingEnv(dataset="valid")
    observations, masks, env_views = [], [], []
    for index in range(3):
        observation, info = env.reset(options={"index": index})
        done = False
        while not done:
            observations.append(observation)
            masks.append(info["action_mask"])
            env_views.append(info["view"])
            observation, _, done, _, info = env.step(bidder.act_view(info["view"]))
    assert len(env_views) > 12
    np.testing.assert_array_equal(bidder.act_batch(np.stack(observations), np.stack(masks)),
                                  [bidder.act_view(v) for v in env_views])
    x, lengths = encode_views(env_views)
    assert all((x[i, :n] == encode_view(v)).all() and not x[i, n:].any() for i, (v, n) in enumerate(zip(env_views,
                                                                                                          lengths)))


def test_a_wrong_step_or_seat_changes_the_stand_ins_outputs(tmp_path):
    write_causal_onnx(tmp_path)
    bidder = BenBidder.load(tmp_path)
    auction = Auction.from_calls(1, [6, 1, 0, 0, 2, 0])  # East deals: 1S X Pass Pass XX Pass, South to call
    bits = np.zeros(52, np.int8)
    bits[np.arange(0, 52, 4)] = 1
    view = AuctionView.of(auction, bits, False, True)
    x = encode_view(view)
    right = causal_reference(x[None])[0, -1]
    np.testing.assert_allclose(bidder.probabilities([view])[0], right, atol=1e-5)
    for wrong in (x[:, [0, 1, 3, 2] + list(range(4, 193))],            # the vulnerabilities swapped
                  np.roll(x, 40, axis=1),                               # the calls one seat round
                  np.concatenate([np.zeros_like(x[:1]), x])[:len(x)]):  # one step late
        assert np.abs(causal_reference(wrong[None])[0, -1] - right).max() > 1e-3


def test_a_folder_without_bens_model_is_refused_in_one_line_naming_it(tmp_path, capsys):
    assert main(["evaluate", "competitive", "--ns", f"ben:{tmp_path}", "--ew", "rules", "--deals", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no bidder.onnx there: BEN's bidding network" in err
    assert "docs/ben.md" in err
    write_causal_onnx(tmp_path / "other", features=192)
    with pytest.raises(ValueError, match=r"not BEN's bidding network \(\[batch, steps, 193\] in"):
        load_agent(f"ben:{tmp_path / 'other'}", "competitive_bidding")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "bidder.onnx").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="bidder.onnx is not a readable ONNX model"):
        load_agent(f"ben:{tmp_path / 'junk'}", "competitive_bidding")
    with pytest.raises(ValueError, match="competitive bidding"):
        load_agent(f"ben:{tmp_path}", "uncontested_bidding")
    with pytest.raises(ValueError, match="system must be one of"):
        load_agent(f"ben:{tmp_path / 'other'},system=7", "competitive_bidding")


def test_the_files_sha256_goes_into_the_results_checkpoints(tmp_path):
    import hashlib

    path = write_causal_onnx(tmp_path)
    _, identity = load_identified(f"ben:{tmp_path}", "bidder")
    assert identity["checkpoints"] == [hashlib.sha256(path.read_bytes()).hexdigest()]
    out = tmp_path / "r.json"
    assert main(["evaluate", "competitive", "--ns", f"ben:{tmp_path}", "--ew", "rules", "--deals", "4",
                 "--json", str(out)]) == 0


def test_import_bridgerl_never_imports_onnxruntime():
    code = ("import sys, bridgerl, bridgerl.cli, bridgerl.agents, bridgerl.arena.specs, bridgerl.envs; "
            "import bridgerl.agents.learned.ben; print('onnxruntime' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.strip() == "False", done.stderr[-1000:]


@pytest.mark.skipif(not os.environ.get("BRIDGERL_BEN_DIR"),
                    reason="BEN's bidder.onnx not given: set BRIDGERL_BEN_DIR to its folder (docs/ben.md)")
def test_bens_own_file_makes_bens_calls_with_bens_probabilities():
    bidder = load_agent(f"ben:{os.environ['BRIDGERL_BEN_DIR']}", "competitive_bidding")
    assert bidder.sha256 == BEN_SHA256
    fixture = _fixture()
    views = _views(fixture)
    probabilities = bidder.probabilities(views)
    assert np.abs(probabilities - fixture["ben_probs"]).max() < 1e-3
    assert (choose(probabilities, np.stack([v.legal_mask for v in views])) == fixture["ben_call"]).all()
