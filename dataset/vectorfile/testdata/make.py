#!/usr/bin/python3
"""Writes vectorfile's fixtures with h5py and numpy, so that the vectors
and their exact neighbours come from a library other than the code under
test. Run from this folder: ./make.py (Debian: python3-h5py python3-numpy).
The Parquet set is written afterwards by makeparquet (Debian has no
pyarrow): go run ./makeparquet, from this folder.

The sums it prints into manifest.json are position-weighted, so that a
reader that reorders or transposes values does not match them.
"""
import json

import h5py
import numpy as np

N, Q, D, K = 1000, 20, 32, 10
rng = np.random.default_rng(35)
train = rng.standard_normal((N, D)).astype(np.float32)
test = rng.standard_normal((Q, D)).astype(np.float32)


def exact(dist):
    """Each query's K nearest indexes, nearest first, ties by index."""
    idx = np.arange(dist.shape[1])
    order = np.array([np.lexsort((idx, row))[:K] for row in dist])
    return order, np.take_along_axis(dist, order, axis=1)


def angular(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    return 1 - a @ b.T


def euclidean(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    return np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))


def weighted(x):
    """sum over the flat array of value × (position mod 97 + 1)."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    return float((flat * (np.arange(flat.size) % 97 + 1)).sum())


def hdf5(name, metric, neighbors, distances):
    # As ann-benchmarks writes its files: int32 neighbours, float32 sets.
    with h5py.File(name, "w") as f:
        f.attrs["distance"] = metric
        f.attrs["point_type"] = "float"
        f.create_dataset("train", data=train)
        f.create_dataset("test", data=test)
        f.create_dataset("neighbors", data=neighbors.astype(np.int32))
        f.create_dataset("distances", data=distances.astype(np.float32))


def xvecs(name, rows, dtype):
    rows = np.asarray(rows, dtype=dtype)
    with open(name, "wb") as f:
        for row in rows:
            f.write(np.int32(rows.shape[1]).astype("<i4").tobytes())
            f.write(row.astype(np.dtype(dtype).newbyteorder("<")).tobytes())


ang, ang_d = exact(angular(test, train))
euc, euc_d = exact(euclidean(test, train))
hdf5("angular.hdf5", "angular", ang, ang_d)
hdf5("euclidean.hdf5", "euclidean", euc, euc_d)
# wrong.hdf5: queries 3 and 7 get each other's lists.
wrong, wrong_d = ang.copy(), ang_d.copy()
wrong[[3, 7]] = wrong[[7, 3]]
wrong_d[[3, 7]] = wrong_d[[7, 3]]
hdf5("wrong.hdf5", "angular", wrong, wrong_d)

xvecs("base.fvecs", train, np.float32)
xvecs("query.fvecs", test, np.float32)
xvecs("groundtruth.ivecs", ang, np.int32)

# A bvecs set as TEXMEX's SIFT1B ships it: uint8 vectors, Euclidean truth.
btrain = rng.integers(0, 256, (100, D), dtype=np.uint8)
btest = rng.integers(0, 256, (5, D), dtype=np.uint8)
bidx = np.arange(len(btrain))
bdist = euclidean(btest, btrain)
border = np.array([np.lexsort((bidx, row))[:K] for row in bdist])
xvecs("base.bvecs", btrain, np.uint8)
xvecs("query.bvecs", btest, np.uint8)
xvecs("groundtruth_b.ivecs", border, np.int32)


def sums(x):
    return {"rows": int(x.shape[0]), "cols": int(x.shape[1]), "weighted": weighted(x),
            "first": [float(v) for v in x[0]], "last": [float(v) for v in x[-1]]}


manifest = {
    "train": sums(train), "test": sums(test),
    "angular": {"neighbors": ang.tolist(), "distances": ang_d.tolist()},
    "euclidean": {"neighbors": euc.tolist()},
    "wrong": {"queries": [3, 7]},
    "btrain": sums(btrain), "btest": sums(btest), "bneighbors": border.tolist(),
}
with open("manifest.json", "w") as f:
    json.dump(manifest, f, indent=1)
    f.write("\n")
print(json.dumps({k: v["weighted"] for k, v in manifest.items() if "weighted" in v}))
