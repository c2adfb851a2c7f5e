"""Fitting the evaluator end to end on a tiny scale: real labelled self-play
data, the fit, the weight file the engine loads (scripts/train_eval.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

from outflank import _core, evaldata, evalfit, evalmodel  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = evaldata.DataConfig(
    seed=3, games_per_shard=4, opening_min=2, opening_max=10, depths=(1, 2), random_move=0.2,
    exact=12, probable=12, depth=2, selective=0.0, label_all=14, sample=0.5,
)  # fmt: skip


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("data")
    evaldata.generate(folder, TINY, 10, workers=2)  # 40 games
    return folder


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "scripts/train_eval.py", *args],
        capture_output=True, text=True, env=env, timeout=300, cwd=ROOT,
    )  # fmt: skip


def test_the_design_matrix_and_predict_agree_with_the_core(data_dir: Path) -> None:
    data = evaldata.load([data_dir])
    masks = evalfit.masks_of(["corner3x3", "triangle", "diag4"])
    anchors = [0, 7, 20, 45, 60]
    feats = evalfit.features(data["player"], data["opponent"], masks)
    empties = data["empties"].astype(np.int64)
    n_pat = _core.eval_layout(masks=masks)["pattern_weights"]
    rng = np.random.default_rng(1)
    w = np.round(rng.normal(0, 1, (len(anchors), n_pat + 7)), 2)
    X = evalfit.design(feats, empties, anchors, n_pat)
    assert np.allclose(X @ w.ravel(), evalfit.predict(w, feats, empties, anchors))
    # the core, given these weights, scores the same (it rounds interpolated weights)
    wf = evalmodel.WeightFile(tuple(masks), tuple(anchors), w[:, :n_pat], w[:, n_pat:])
    _core.eval_load(wf.to_bytes(), 3)
    pairs = zip(data["player"].tolist(), data["opponent"].tolist(), strict=True)
    core = np.array([_core.eval_default(p, o, slot=3) for p, o in pairs]) / 100
    # each interpolated weight is off by less than 1/100 disc (times its feature's value)
    bound = 0.01 * (feats.shape[1] - 6 + np.abs(feats[:, -6:]).sum(axis=1) + 1)
    assert (np.abs(core - evalfit.predict(w, feats, empties, anchors)) <= bound).all()


def test_a_prior_at_its_own_anchors_is_itself() -> None:
    packaged = evalmodel.read(ROOT / "src" / "outflank" / "data" / "eval.bin.gz")
    w = evalfit.prior_weights(packaged, packaged.masks, packaged.anchors)
    assert np.array_equal(w, np.hstack([packaged.patterns, packaged.numeric]))
    # a type it does not have starts at zero, the shared ones are kept
    masks = [evalfit.TYPES["triangle"], *packaged.masks[:2]]
    w = evalfit.prior_weights(packaged, masks, packaged.anchors)
    tri = _core.eval_layout(masks=masks[:1])["pattern_weights"]
    assert not w[:, :tri].any()
    kept = _core.eval_layout(masks=masks)["pattern_weights"] - tri
    assert np.array_equal(w[:, tri : tri + kept], packaged.patterns[:, :kept])


def test_fit_write_load_and_report(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "w.bin.gz"
    proc = _run(
        str(data_dir), "--types", "legacy+triangle", "--anchor-step", "10", "--max-iter", "40",
        "--out", str(out), "--report", str(tmp_path / "r.md"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "validation RMSE" in proc.stdout and "MAE new" in proc.stdout
    report = (tmp_path / "r.md").read_text()
    assert "| all |" in report and "MAE baseline" in report
    wf = evalmodel.read(out)
    assert wf.anchors == (0, 10, 20, 30, 40, 50, 60)
    assert list(wf.masks) == evalfit.masks_of([*evalfit.LEGACY, "triangle"])
    # the engine in a fresh process loads it (this one keeps the packaged weights)
    check = (
        "from outflank import _core, evalmodel;"
        f"evalmodel.load_into({str(out)!r}, 0);"
        "l = _core.eval_layout(); print(l['fitted'], l['patterns'])"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    res = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env)
    assert res.stdout.split() == ["1", "50"], res.stderr  # 46 + 4 triangles
    # the fit beats knowing nothing on its test games
    data = evaldata.load([data_dir])
    test = evalfit.split(data["game"]).test
    _core.eval_load(wf.to_bytes(), 3)
    pred = np.array(
        [_core.eval_default(int(data["player"][i]), int(data["opponent"][i]), slot=3) for i in test]
    ) / 100  # fmt: skip
    label = data["label"][test] / 100
    assert np.mean(np.abs(pred - label)) < np.mean(np.abs(label - label.mean()))


def test_a_prior_and_a_dry_run(data_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "w.bin.gz"
    packaged = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"
    proc = _run(str(data_dir), "--prior", str(packaged), "--max-iter", "10", "--dry-run",
                "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "start: validation RMSE" in proc.stdout and not out.exists()


def test_scaled_multiplies_only_the_anchors_in_its_range() -> None:
    packaged = evalmodel.read(ROOT / "src" / "outflank" / "data" / "eval.bin.gz")
    before = packaged.patterns.copy()
    scaled = packaged.scaled(1.5, 20, 40)
    inside = (np.array(packaged.anchors) >= 20) & (np.array(packaged.anchors) <= 40)
    assert inside.any() and (~inside).any()
    assert np.array_equal(scaled.patterns[inside], packaged.patterns[inside] * 1.5)
    assert np.array_equal(scaled.numeric[inside], packaged.numeric[inside] * 1.5)
    assert np.array_equal(scaled.patterns[~inside], packaged.patterns[~inside])
    assert np.array_equal(scaled.numeric[~inside], packaged.numeric[~inside])
    assert np.array_equal(packaged.patterns, before)  # not changed in place


def test_scale_on_the_command_line_scales_the_fitted_anchors(
    data_dir: Path, tmp_path: Path
) -> None:
    packaged = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"
    common = ["--prior", str(packaged), "--keep-below", "20", "--max-iter", "3"]
    plain, scaled = tmp_path / "plain.bin.gz", tmp_path / "scaled.bin.gz"
    for out, extra in ((plain, []), (scaled, ["--scale", "2"])):
        proc = _run(str(data_dir), *common, *extra, "--out", str(out))
        assert proc.returncode == 0, proc.stderr
    a, b = evalmodel.read(plain), evalmodel.read(scaled)
    fitted = np.array(a.anchors) >= 20
    assert np.array_equal(b.patterns[~fitted], a.patterns[~fitted])  # the kept endgame
    assert np.allclose(b.patterns[fitted], 2 * a.patterns[fitted], atol=0.016)
    assert np.allclose(b.numeric[fitted], 2 * a.numeric[fitted], atol=0.016)


@pytest.mark.parametrize(
    ("keep", "kept_at"),
    [
        ({"keep_above": 8}, lambda a: a > 8),  # an endgame-only refit
        ({"keep_below": 20}, lambda a: a < 20),  # a midgame-only refit
        ({"keep_below": 20, "keep_above": 40}, lambda a: (a < 20) | (a > 40)),  # the band
    ],
)
def test_kept_anchors_keep_the_prior_exactly(
    data_dir: Path, keep: dict[str, int], kept_at: Any
) -> None:
    data = evaldata.load([data_dir])
    packaged = evalmodel.read(ROOT / "src" / "outflank" / "data" / "eval.bin.gz")
    # a prior the data improves on: the packaged weights halved
    prior = evalmodel.WeightFile(
        packaged.masks, packaged.anchors, packaged.patterns / 2, packaged.numeric / 2
    )
    anchors = list(range(0, 61, 4))
    masks = list(packaged.masks)
    games = data["game"] * 20 + 2  # all training: 30 iterations, no early stop
    args = (data["player"], data["opponent"], data["label"] / 100, games, masks, anchors)
    res = evalfit.fit(*args, prior=prior, max_iter=30, log=None, **keep)
    start = evalfit.prior_weights(prior, masks, anchors)
    got = np.hstack([res.weights.patterns, res.weights.numeric])
    kept = kept_at(np.array(anchors))
    assert np.array_equal(got[kept], start[kept])  # exactly the prior's weights there
    assert not np.allclose(got[~kept], start[~kept])  # fitted elsewhere
    with pytest.raises(ValueError, match="prior"):
        evalfit.fit(*args, max_iter=1, log=None, **keep)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--keep-above", "20"], "--keep-above needs --prior"),
        (["--keep-below", "20"], "--keep-below needs --prior"),
        (["--types", "legacy+nonsense"], "unknown pattern set or type"),
        (["--anchor-step", "0"], "--anchor-step"),
        (["--parity", "--anchor-step", "4"], "--parity has an anchor per empties count"),
        (["--ridge", "-1"], "--ridge"),
        (["--balance", "-2"], "--balance"),
        (["--balance", "inf"], "--balance"),
        (["--balance", "5", "--balance-by", "prior"], "--balance-by prior needs --prior"),
        (["--scale", "0"], "--scale must be a number above 0"),
        (["--scale", "nan"], "--scale must be a number above 0"),
        (["--out", "/no/such/folder/w.bin.gz"], "no folder"),
        (["--baseline", "README.md"], "not an evaluator weight file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(data_dir: Path, args: list[str], message: str) -> None:
    proc = _run(str(data_dir), *args)
    assert proc.returncode == 2 and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_missing_data_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = _run(str(tmp_path / "nothing"))
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_a_fit_with_count_tables_writes_a_model_the_core_scores_the_same(
    data_dir: Path, tmp_path: Path
) -> None:
    """--tables: the weights gain the count tables (160 per phase; a fit from
    a prior without them starts them at zero, from one with them at its
    own); the file is version 4, and the core scores its test games as the fit's
    own prediction does (to the rounding of interpolated weights)."""
    out = tmp_path / "t.bin.gz"
    packaged = ROOT / "src" / "outflank" / "data" / "eval.bin.gz"
    proc = _run(str(data_dir), "--tables", "--anchor-step", "10", "--max-iter", "40",
                "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "count tables" in proc.stdout
    wf = evalmodel.read(out)
    assert wf.tables and out.read_bytes()[:2] == b"\x1f\x8b"
    masks, n_tab = list(wf.masks), evalfit.table_weights()
    plain = _core.eval_layout(masks=masks)["pattern_weights"]
    assert n_tab == 160 and wf.patterns.shape == (len(wf.anchors), plain + n_tab)
    assert np.abs(wf.patterns[:, plain:]).sum() > 0  # the data moved the tables
    # a prior with tables hands them on; one without starts them at zero
    again = evalfit.prior_weights(wf, masks, wf.anchors, tables=True)
    assert np.array_equal(again[:, : plain + n_tab], wf.patterns)
    start = evalfit.prior_weights(evalmodel.read(packaged), masks, wf.anchors, tables=True)
    assert not start[:, plain : plain + n_tab].any()
    data = evaldata.load([data_dir])
    feats = evalfit.features(data["player"], data["opponent"], masks, tables=True)
    empties = data["empties"].astype(np.int64)
    w = np.hstack([wf.patterns, wf.numeric])
    _core.eval_load(wf.to_bytes(), 3)
    pairs = zip(data["player"].tolist(), data["opponent"].tolist(), strict=True)
    core = np.array([_core.eval_default(p, o, slot=3) for p, o in pairs]) / 100
    bound = 0.01 * (feats.shape[1] - 6 + np.abs(feats[:, -6:]).sum(axis=1) + 1)
    assert (np.abs(core - evalfit.predict(w, feats, empties, list(wf.anchors))) <= bound).all()


def test_balance_weights() -> None:
    w = evalfit.balance_weights(np.array([0.0, 5.0, -5.0, 15.0]), 5.0)
    assert np.allclose(w, [1.0, 0.5, 0.5, 0.1])
    assert (evalfit.balance_weights(np.array([0.0, 64.0]), 0.0) == 1.0).all()
    with pytest.raises(ValueError, match="balance"):
        evalfit.balance_weights(np.array([1.0]), -1.0)


def test_a_balanced_fit_fits_the_even_positions_better(data_dir: Path) -> None:
    """Weighted least squares: the fit with ``balance`` has the smaller
    weighted error on its training positions, the plain fit the smaller
    plain error (every game in training, so both run to convergence)."""
    data = evaldata.load([data_dir])
    label = data["label"] / 100
    games = data["game"] * 20 + 2  # all training: no validation, no early stop
    masks = evalfit.masks_of(["edge2x", "corner3x3"])
    anchors = [0, 20, 40, 60]
    args = (data["player"], data["opponent"], label, games, masks, anchors)
    kw = {"ridge": 1e-3, "smooth": 1e-3, "max_iter": 100, "log": None}
    plain = evalfit.fit(*args, **kw)
    balanced = evalfit.fit(*args, balance=4.0, **kw)
    train = evalfit.split(games).train
    assert len(train) == len(label)
    feats = evalfit.features(data["player"][train], data["opponent"][train], masks)
    empties = data["empties"][train].astype(np.int64)
    w = evalfit.balance_weights(label[train], 4.0)
    errors = {}
    for name, result in (("plain", plain), ("balanced", balanced)):
        wf = result.weights
        pred = evalfit.predict(np.hstack([wf.patterns, wf.numeric]), feats, empties, anchors)
        err = (pred - label[train]) ** 2
        errors[name] = (err.mean(), np.average(err, weights=w))
    assert errors["balanced"][1] < errors["plain"][1]
    assert errors["plain"][0] < errors["balanced"][0]


def test_balancing_by_the_prior_does_not_shrink_the_values(data_dir: Path) -> None:
    """Labels that are the prior's own scores plus noise: weighing each
    position by its label favours the ones whose noise pulled them towards
    zero, so that fit's values shrink (their slope on the prior's < 0.9);
    weighing it by the prior's score keeps the slope near 1."""
    data = evaldata.load([data_dir])
    packaged = evalmodel.read(ROOT / "src" / "outflank" / "data" / "eval.bin.gz")
    masks = evalfit.masks_of(["diag4", "diag5"])  # few weights: the fit cannot chase the noise
    anchors = [0, 20, 40, 60]
    feats = evalfit.features(data["player"], data["opponent"], masks)
    empties = data["empties"].astype(np.int64)
    start = evalfit.prior_weights(packaged, masks, anchors)
    prior_score = evalfit.predict(start, feats, empties, anchors)
    noise = np.random.default_rng(5).normal(0.0, 6.0, len(prior_score))
    games = data["game"] * 20 + 2  # all training: no validation, no early stop
    args = (data["player"], data["opponent"], prior_score + noise, games, masks, anchors)
    kw = {"ridge": 1.0, "smooth": 1e-3, "max_iter": 100, "prior": packaged, "log": None}
    slopes = {}
    for by in ("label", "prior"):
        wf = evalfit.fit(*args, balance=3.0, balance_by=by, **kw).weights
        pred = evalfit.predict(np.hstack([wf.patterns, wf.numeric]), feats, empties, anchors)
        slopes[by] = np.polyfit(prior_score, pred, 1)[0]
    assert slopes["label"] < 0.85 and abs(slopes["prior"] - 1) < 0.05, slopes
    with pytest.raises(ValueError, match="prior"):
        evalfit.fit(*args[:-2], masks, anchors, balance=3.0, balance_by="prior", log=None)


def test_parity_apart_fits_what_alternates_with_the_empties(data_dir: Path) -> None:
    """Labels that count the mover's discs at odd empties and against him at
    even (a constant swing would not do: the parity feature fits it): with
    an anchor per count and a stiff smoothing, the smoothing between
    neighbours (lag 1) holds odd and even phases together and cannot fit
    the swing; tied only two counts apart (lag 2, ``--parity``) each
    parity is free (60 iterations bring it to about a tenth of a disc;
    the lag-1 fit stays above 5)."""
    data = evaldata.load([data_dir])
    empties = data["empties"].astype(np.int64)
    discs = np.bitwise_count(data["player"]).astype(float) - np.bitwise_count(data["opponent"])
    label = np.where(empties % 2 == 1, 0.5, -0.5) * discs
    games = data["game"] * 20 + 2  # all training: no validation, no early stop
    masks = evalfit.masks_of(["edge2x"])
    anchors = list(range(61))
    args = (data["player"], data["opponent"], label, games, masks, anchors)
    kw = {"ridge": 1e-3, "smooth": 1e5, "max_iter": 60, "log": None}
    feats = evalfit.features(data["player"], data["opponent"], masks)
    errors = {}
    for lag in (1, 2):
        wf = evalfit.fit(*args, smooth_lag=lag, **kw).weights
        pred = evalfit.predict(np.hstack([wf.patterns, wf.numeric]), feats, empties, anchors)
        errors[lag] = float(np.sqrt(np.mean((pred - label) ** 2)))
    assert errors[2] < 0.3 < 2.5 < errors[1], errors
    with pytest.raises(ValueError, match="smooth_lag"):
        evalfit.fit(*args, smooth_lag=0, **kw)


def test_parity_on_the_command_line_writes_an_anchor_per_count(
    data_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "w.bin.gz"
    proc = _run(str(data_dir), "--parity", "--max-iter", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "parity apart" in proc.stdout
    assert evalmodel.read(out).anchors == tuple(range(61))


def test_outcome_blend_and_label_min(data_dir: Path) -> None:
    proc = _run(str(data_dir), "--outcome", "0.5", "--label-min", "13", "--max-iter", "10",
                "--dry-run")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = evaldata.load([data_dir])
    kept = int((data["empties"] >= 13).sum())
    blended = int(((data["kind"] == evaldata.SEARCH) & ~np.isnan(evaldata.game_values(data))).sum())
    assert blended > 0 and f"{blended:,} of {len(data['label']):,} labels blended" in proc.stdout
    assert proc.stdout.splitlines()[1].startswith(f"{kept:,} positions")
    for bad in (["--outcome", "1.5"], ["--label-min", "61"]):
        proc = _run(str(data_dir), *bad, "--dry-run")
        assert proc.returncode == 2 and "train_eval.py: error:" in proc.stderr
