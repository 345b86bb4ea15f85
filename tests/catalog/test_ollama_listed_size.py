"""The size ollama.com lists for a tag, read from the scrape a source quotes
(scripts/catalog/distribution.py's listed_gb), against hand-made source texts
(python3 -m unittest discover -s tests/catalog)."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "catalog"))

import distribution  # noqa: E402

SCRAPE = ("MarkWard0110/ollama-models/ollama_models/ollama_models.json@8a7dfc05ce4f (scrape of "
          "ollama.com/library/gemma3, 2026-06-20: tag '4b', 3.3GB, digest a2af6cc3eb7f, same digest as 4b-it-q4_K_M, latest)")


class ListedSize(unittest.TestCase):
    def test_the_tags_own_listing(self):
        self.assertEqual(distribution.listed_gb("gemma3:4b", SCRAPE), 3.3)

    def test_another_tags_listing_is_not_this_ones(self):
        # "same digest as 4b-it-q4_K_M" names another tag; only "tag '<name>', <size>" counts.
        self.assertIsNone(distribution.listed_gb("gemma3:4b-it-q4_K_M", SCRAPE))

    def test_megabytes_are_read_as_gigabytes(self):
        self.assertEqual(distribution.listed_gb("qwen3:0.6b", "scrape: tag '0.6b', 523MB, digest 7df6b6e09427"), 0.523)

    def test_a_source_without_a_listing(self):
        self.assertIsNone(distribution.listed_gb("gpt-oss:20b", "https://github.com/ollama/ollama/issues/11790"))


if __name__ == "__main__":
    unittest.main()
