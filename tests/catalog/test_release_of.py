"""The catalog's release_of rule against hand-made records: a model's FP8 or NVFP4 release names
another catalog model of the same shape, released as its publisher released it
(python3 -m unittest discover -s tests/catalog)."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "catalog"))

import check_catalog  # noqa: E402


def model(mid, release_of=None, hidden=5120, layers=92):
    return {"id": mid, "release_of": release_of,
            "config": {"hidden_size": hidden, "num_hidden_layers": layers, "num_attention_heads": 96, "vocab_size": 151552}}


def problems(models):
    c = check_catalog.Checker()
    check_catalog.check_release_of(c, {"models": models})
    return c.errors


class ReleaseOf(unittest.TestCase):
    def test_a_release_of_the_same_shape_passes(self):
        self.assertEqual(problems([model("glm-4.5"), model("glm-4.5-fp8", "glm-4.5")]), [])

    def test_a_release_of_a_model_not_in_the_catalog_is_named(self):
        self.assertEqual(len(problems([model("glm-4.5-fp8", "glm-4.5")])), 1)

    def test_a_release_of_itself_or_of_another_release_is_refused(self):
        self.assertEqual(len(problems([model("a", "a")])), 1)
        self.assertEqual(len(problems([model("base"), model("b", "base"), model("c", "b")])), 1)

    def test_another_shape_is_not_the_same_model(self):
        found = problems([model("glm-4.5"), model("glm-4.5-air-fp8", "glm-4.5", hidden=4096, layers=46)])
        self.assertEqual(len(found), 1)
        self.assertIn("hidden_size, num_hidden_layers", found[0])


if __name__ == "__main__":
    unittest.main()
