"""Score an installed toponeuro language plugin with brainscore-language itself (run by
.ci/brainscore_language_demo.py in brainscore-language's own environment).

1. ``brainscore_language.load_model(identifier)``: the exported plugin, as Brain-Score loads
   a submission. Its ArtificialSubject outputs are checked: reading times (one surprisal per
   text part, NaN only for a first part), next word (a string per part) and neural
   recordings of ``language_system`` (presentation x neuroid, with Brain-Score's coords).
2. The same weights in transformers' ``GPT2LMHeadModel`` (nanoGPT's blocks are GPT-2's; a
   bias-free model gets zero biases, exact GELU), wrapped in brainscore-language's own
   ``HuggingfaceSubject`` with the same tokenizer.
3. Both scored on SyntaxGym suites built from the json files the released wheel ships
   (``benchmarks/syntaxgym/suites/syntaxgym-2020``; the registry's entries fetch the same
   suites from GitHub, so they are constructed here from the local files instead), and the
   per-region surprisals of both compared item by item.

Writes the numbers to ``--out`` (json) with ``ok``; exits non-zero when a check fails.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch


def gpt2_from_nanogpt(state, n_head):
    """transformers GPT2LMHeadModel with nanoGPT weights (Linear -> Conv1D: transposed)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    vocab, n_embd = state["transformer.wte.weight"].shape
    n_layer = 1 + max(int(k.split(".")[2]) for k in state if k.startswith("transformer.h."))
    cfg = GPT2Config(vocab_size=int(vocab), n_positions=int(state["transformer.wpe.weight"].shape[0]),
                     n_embd=int(n_embd), n_layer=n_layer, n_head=n_head,
                     activation_function="gelu", resid_pdrop=0.0, embd_pdrop=0.0,
                     attn_pdrop=0.0, layer_norm_epsilon=1e-5, tie_word_embeddings=True)
    hf = GPT2LMHeadModel(cfg).eval()
    new = {}
    for k, v in hf.state_dict().items():
        if k.endswith(".attn.bias") or k.endswith(".attn.masked_bias"):
            new[k] = v
            continue
        src = state.get(k)
        if src is None:
            if k == "lm_head.weight":
                src = state["transformer.wte.weight"]
            elif k.endswith(".bias"):  # nanoGPT without biases
                src = torch.zeros_like(v)
            else:
                raise KeyError(f"no nanoGPT weight for {k}")
        if any(k.endswith(s) for s in ("c_attn.weight", "c_proj.weight", "c_fc.weight")):
            src = src.t()
        new[k] = src.to(v.dtype).reshape(v.shape)
    hf.load_state_dict(new, strict=True)
    return hf


def region_surprisals(bench, subject):
    return bench.get_region_totals(subject)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--identifier", required=True)
    ap.add_argument("--weights", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--n-head", type=int, required=True)
    ap.add_argument("--layer", required=True)
    ap.add_argument("--suites", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    import brainscore_language
    from brainscore_language import ArtificialSubject, load_model
    from brainscore_language.benchmarks.syntaxgym.benchmark import SyntaxGymSingleTSE
    from brainscore_language.model_helpers.huggingface import HuggingfaceSubject
    from transformers import AutoTokenizer

    t0 = time.time()
    failures, result = [], {"brainscore_language": getattr(brainscore_language, "__version__",
                                                           "2.3.0"),
                            "identifier": args.identifier, "suites": {}}
    plugin = load_model(args.identifier)
    result["plugin_class"] = type(plugin).__name__

    # -- the ArtificialSubject interface of the plugin -----------------------------------------
    parts = ["The dog that the cat chased", "ran home", "."]
    plugin.start_behavioral_task(ArtificialSubject.Task.reading_times)
    rt = plugin.digest_text(parts)["behavior"]
    if rt.dims != ("presentation",) or rt.sizes["presentation"] != len(parts):
        failures.append(f"reading times dims {rt.dims} sizes {dict(rt.sizes)}")
    if not np.isfinite(rt.values[1:]).all():
        failures.append(f"reading times not finite after the first part: {rt.values}")
    plugin.start_behavioral_task(ArtificialSubject.Task.next_word)
    nw = plugin.digest_text(parts)["behavior"]
    if nw.sizes["presentation"] != len(parts) or not all(isinstance(w, str) for w in nw.values):
        failures.append(f"next words {nw.values}")
    neural_plugin = load_model(args.identifier)
    neural_plugin.start_neural_recording(ArtificialSubject.RecordingTarget.language_system,
                                         ArtificialSubject.RecordingType.fMRI)
    rec = neural_plugin.digest_text(parts)["neural"]
    def has(coord):
        try:
            rec[coord]
        except KeyError:
            return False
        return True

    missing = [c for c in ("stimulus", "part_number", "layer", "region", "neuroid_id")
               if not has(c)]
    if rec.dims != ("presentation", "neuroid") or rec.sizes["presentation"] != len(parts) \
            or missing:
        failures.append(f"neural recording dims {rec.dims} sizes {dict(rec.sizes)}, "
                        f"missing coords {missing}")
    result["interface"] = {"reading_times": [None if not np.isfinite(v) else round(float(v), 4)
                                             for v in rt.values],
                           "next_words": [str(w) for w in nw.values],
                           "neural_shape": list(rec.shape),
                           "neural_layer": sorted(set(map(str, rec["layer"].values)))}

    # -- the same weights through brainscore-language's HuggingfaceSubject -----------------------
    state = torch.load(args.weights, map_location="cpu", weights_only=True)
    tok = AutoTokenizer.from_pretrained(args.tokenizer, truncation_side="left")
    hf = HuggingfaceSubject(
        model_id=f"{args.identifier}-hf", model=gpt2_from_nanogpt(state, args.n_head),
        tokenizer=tok,
        region_layer_mapping={ArtificialSubject.RecordingTarget.language_system: args.layer})
    hf.start_neural_recording(ArtificialSubject.RecordingTarget.language_system,
                              ArtificialSubject.RecordingType.fMRI)
    rec_hf = hf.digest_text(parts)["neural"]
    diff = float(np.abs(np.asarray(rec_hf.values) - np.asarray(rec.values)).max())
    result["interface"]["neural_max_abs_diff_vs_huggingface"] = diff
    if rec_hf.shape != rec.shape or not diff < 1e-4:
        failures.append(f"neural recordings differ from HuggingfaceSubject's: shape "
                        f"{rec.shape} vs {rec_hf.shape}, max |diff| {diff:.2e}")

    # -- SyntaxGym, offline, both subjects -------------------------------------------------------
    hf_rt = HuggingfaceSubject(model_id=f"{args.identifier}-hf", model=hf.basemodel,
                               tokenizer=tok, region_layer_mapping={})
    for suite in args.suites:
        ts = time.time()
        bench = SyntaxGymSingleTSE(identifier=suite, suite_ref=suite)
        row = {"n_items": len(bench.suite.items)}
        for name, subject in (("plugin", load_model(args.identifier)), ("huggingface", hf_rt)):
            totals = bench.get_region_totals(subject)
            preds = np.array(bench.evaluate_predictions(totals)).all(axis=1)
            score = float(bench.metric(preds, [True] * len(preds)).values)
            row[name] = {"score": score, "totals": totals}
        a = np.array([v for item in row["plugin"].pop("totals") for v in item.values()], float)
        b = np.array([v for item in row["huggingface"].pop("totals") for v in item.values()],
                     float)
        row["n_region_surprisals"] = int(a.size)
        row["max_abs_surprisal_diff"] = float(np.abs(a - b).max())
        row["n_surprisals_differing_over_1e-3_bits"] = int((np.abs(a - b) > 1e-3).sum())
        row["score_equal"] = row["plugin"]["score"] == row["huggingface"]["score"]
        row["seconds"] = round(time.time() - ts, 1)
        result["suites"][suite] = row
        print(f"[bsl] {suite}: plugin {row['plugin']['score']:.3f}, HuggingfaceSubject "
              f"{row['huggingface']['score']:.3f}, max |surprisal diff| "
              f"{row['max_abs_surprisal_diff']:.2e} bits over {a.size} regions "
              f"({row['seconds']} s)", flush=True)
        if not np.isfinite(a).all() or a.size == 0:
            failures.append(f"{suite}: plugin surprisals not finite")
        # measured 7.6e-6 bits (float32); 1e-3 bits leaves room for another BLAS, not for
        # another reading of the text parts
        if not row["max_abs_surprisal_diff"] < 1e-3 or not row["score_equal"]:
            failures.append(f"{suite}: plugin and HuggingfaceSubject disagree (max |surprisal "
                            f"diff| {row['max_abs_surprisal_diff']:.2e} bits, scores "
                            f"{row['plugin']['score']} vs {row['huggingface']['score']})")
    result["failures"] = failures
    result["ok"] = not failures
    result["seconds"] = round(time.time() - t0, 1)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    for msg in failures:
        print(f"[bsl] FAIL: {msg}", flush=True)
    return 0 if not failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
