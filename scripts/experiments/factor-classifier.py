#!/usr/bin/env python3
"""An outside check of the suggestion engine's contributing-factor F1 (docs/suggest.md).

Trains a plain word classifier on the seed corpus and scores it the way
`ilgraph eval suggest` scores the engine: the query is a case's symptoms text
and summary in one language; the cases are split into ten folds (case i, in id
order, in fold i mod 10); each fold is predicted by a model trained on the
other folds, and with the Min/Max cut-off calibrated on the other folds'
out-of-fold answers (nested); F1 is micro-averaged over the cases.

The classifier: one-vs-rest logistic regression with balanced class weights
over TF-IDF features (words, word pairs, or character n-grams) of either the
training cases' query text or their whole text (title, summary, trigger,
symptoms, detection, lessons, action items).

Not part of the build or the tests; it needs scikit-learn:

    pip install scikit-learn
    python3 scripts/experiments/factor-classifier.py en   # or ko
"""
import glob
import json
import os
import sys

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MultiLabelBinarizer

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FOLDS = 10
LANG = sys.argv[1] if len(sys.argv) > 1 else "en"

cases = [json.load(open(f)) for f in glob.glob(os.path.join(ROOT, "seeds", "cases", "*.json"))]
cases.sort(key=lambda c: c["id"])
n = len(cases)


def field(c, k):
    v = c.get(k)
    return v.get(LANG, "") if isinstance(v, dict) else ""


def query(c):
    return field(c, "symptoms_text") + " " + field(c, "summary")


def whole(c):
    keys = ["title", "summary", "trigger", "symptoms_text", "detection", "lessons", "action_items"]
    return " ".join(field(c, k) for k in keys)


y = MultiLabelBinarizer().fit_transform([c["contributing"] for c in cases])


def f1(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0
    r = tp / (tp + fn) if tp + fn else 0
    return 2 * p * r / (p + r) if p + r else 0


def fold(f):
    test = [i for i in range(n) if i % FOLDS == f]
    train = [i for i in range(n) if i % FOLDS != f]
    return train, test


def out_of_fold(train_text, c, analyzer, ngrams):
    probs = np.zeros(y.shape)
    for f in range(FOLDS):
        train, test = fold(f)
        stop = "english" if analyzer == "word" and LANG == "en" else None
        vec = TfidfVectorizer(analyzer=analyzer, ngram_range=ngrams, min_df=2, sublinear_tf=True, stop_words=stop)
        x_train = vec.fit_transform([train_text(cases[i]) for i in train])
        x_test = vec.transform([query(cases[i]) for i in test])
        for j in range(y.shape[1]):
            if y[train, j].sum() == 0:
                continue
            m = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(x_train, y[train, j])
            probs[test, j] = m.predict_proba(x_test)[:, 1]
    return probs


def counts(probs, idx, cut):
    lo, most = cut
    tp = fp = fn = 0
    for i in idx:
        pred = {j for j in np.argsort(-probs[i])[:most] if probs[i, j] >= lo}
        true = set(np.where(y[i])[0])
        tp, fp, fn = tp + len(pred & true), fp + len(pred - true), fn + len(true - pred)
    return tp, fp, fn


def calibrate(probs, idx):
    cuts = [(lo / 20, most) for most in range(1, 6) for lo in range(1, 20)]
    return max(cuts, key=lambda cut: f1(*counts(probs, idx, cut)))


def nested(probs):
    tp = fp = fn = 0
    for f in range(FOLDS):
        train, test = fold(f)
        a, b, c = counts(probs, test, calibrate(probs, train))
        tp, fp, fn = tp + a, fp + b, fn + c
    return f1(tp, fp, fn)


features = [("word", (1, 1)), ("word", (1, 2)), ("char_wb", (2, 4))] if LANG == "en" else [("char_wb", (2, 3)), ("char_wb", (2, 4))]
for name, text in [("query text", query), ("whole text", whole)]:
    for analyzer, ngrams in features:
        for c in [0.3, 1, 3, 10]:
            p = out_of_fold(text, c, analyzer, ngrams)
            print(f"{LANG} trained on {name}, {analyzer} {ngrams}, C={c}: nested F1 {nested(p):.3f}", flush=True)
