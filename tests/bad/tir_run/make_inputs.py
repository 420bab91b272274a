#!/usr/bin/python3
"""Writes the .npy inputs of the tir_run corpus (cases.txt) into this folder.
Run it again after changing it; its outputs are committed so the corpus
needs no numpy to run."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    arrays = {
        "f32_2x3.npy": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f32_3x2.npy": np.ones((3, 2), np.float32),
        "i32_2x3.npy": np.ones((2, 3), np.int32),
        "f32_6.npy": np.ones(6, np.float32),
        "f32_4.npy": np.arange(4, dtype=np.float32),
        "i32_4.npy": np.array([8, 4, 0, 2], np.int32),
        "i32_scalar.npy": np.array(3, np.int32),
        "i32_vec.npy": np.array([3, 3], np.int32),
    }
    for name, a in arrays.items():
        np.save(os.path.join(HERE, name), a)
    with open(os.path.join(HERE, "garbage.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00garbage")


if __name__ == "__main__":
    main()
