"""The catalog's purchase-price rules against hand-made records whose right answers are known:
a price in another currency converted at the sourced rate nearest its date, and a CPU-only
machine priced as CPU + board + RAM with a RAM record for one module of several
(python3 -m unittest discover -s tests/catalog)."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "catalog"))

import build_catalog  # noqa: E402

# (date, units per USD, source, doubted)
RATES = {"CNY": [("2025-01-02", 7.30, "rate A", False), ("2026-01-05", 7.00, "rate B", False)],
         "JPY": [("2026-06-30", 162.65, "broker comment", True)]}


def device(did="box"):
    return {"id": did, "vendor": "amd", "price_usd": None, "price_kind": None, "price_as_of": None,
            "price_low_usd": None, "price_high_usd": None, "price_machine": None, "price_low_confidence": None,
            "server_price_usd": None, "sources": [], "notes": ""}


class Conversion(unittest.TestCase):
    def test_the_rate_nearest_the_price_date_converts_it(self):
        # CNY 16,499 on 2025-01-30: nearest rate 7.30 (2025-01-02) -> 16499 / 7.30 = 2260.1 -> $2,260.
        r = {"device_id": "x", "kind": "launch_msrp", "usd": None, "currency": "CNY", "amount": 16499,
             "what": "card", "as_of": "2025-01-30", "source": "page"}
        out = build_catalog.in_usd(r, RATES)
        self.assertEqual(out["usd"], 2260)
        self.assertIn("CNY 16,499 at 7.3 CNY per USD on 2025-01-02", out["what"])
        self.assertIn("rate: rate A", out["source"])
        # A 2026-02 price takes the 2026 rate: 16499 / 7.00 = 2357.
        self.assertEqual(build_catalog.in_usd(dict(r, as_of="2026-02"), RATES)["usd"], 2357)

    def test_a_year_only_date_is_mid_year(self):
        # "2025" is read as 2025-07-01: 180 days from rate A (2025-01-02) and 188 from rate B
        # (2026-01-05), so rate A: 16499 / 7.30 = $2,260. Read as January 1st it would still be A;
        # "2025-12" (2025-12-15) is 21 days from B: 16499 / 7.00 = $2,357.
        r = {"device_id": "x", "kind": "list_price", "usd": None, "currency": "CNY", "amount": 16499,
             "what": "card", "as_of": "2025", "source": "page"}
        self.assertEqual(build_catalog.in_usd(r, RATES)["usd"], 2260)
        self.assertEqual(build_catalog.in_usd(dict(r, as_of="2025-12"), RATES)["usd"], 2357)

    def test_a_doubted_rate_makes_a_doubted_price(self):
        # JPY 1,118,000 / 162.65 = 6873.7 -> $6,874, labelled low confidence by the rate's doubt.
        r = {"device_id": "x", "kind": "street_new", "usd": None, "currency": "JPY", "amount": 1118000,
             "what": "card", "as_of": "2026-07-23", "source": "shop"}
        out = build_catalog.in_usd(r, RATES)
        self.assertEqual(out["usd"], 6874)
        self.assertTrue(build_catalog.weak_price(out))
        self.assertFalse(build_catalog.weak_price(build_catalog.in_usd(dict(r, currency="CNY", as_of="2026-01"), RATES)))

    def test_no_rate_no_price(self):
        r = {"device_id": "x", "kind": "street_new", "usd": None, "currency": "GBP", "amount": 920.99,
             "what": "cpu", "as_of": "2024-10-22", "source": "page"}
        self.assertIsNone(build_catalog.in_usd(r, RATES))


class Platforms(unittest.TestCase):
    def test_cpu_board_and_eight_modules_sum(self):
        # 3,799.99 + 1,246.99 + 8 x 1,800 = 19,446.98.
        d = device()
        recs = [
            {"device_id": "box", "kind": "component", "component": "cpu", "usd": 3799.99, "what": "cpu",
             "as_of": "2026-04-11", "source": "a"},
            {"device_id": "box", "kind": "component", "component": "board", "usd": 1246.99, "what": "board",
             "as_of": "2026-04-11", "source": "b"},
            {"device_id": "box", "kind": "component", "component": "ram", "usd": 1800, "modules": 8,
             "what": "one 64 GB module", "as_of": "2026-06", "source": "c"},
        ]
        build_catalog.apply_sourced_prices([d], recs)
        self.assertAlmostEqual(d["price_usd"], 19446.98, places=2)
        self.assertEqual(d["price_kind"], "platform_components")
        self.assertIn("8 x $1,800", d["price_machine"])

    def test_a_newer_doubted_street_price_does_not_replace_a_sourced_one(self):
        d = device()
        build_catalog.apply_sourced_prices([d], [
            {"device_id": "box", "kind": "street_new", "usd": 6490, "what": "listing", "as_of": "2026-07-14",
             "source": "a"},
            {"device_id": "box", "kind": "street_new", "usd": 6874, "what": "listing", "as_of": "2026-07-23",
             "source": "b", "note": "LOW CONFIDENCE exchange rate."}])
        self.assertEqual(d["price_usd"], 6490)
        self.assertIsNone(d["price_low_confidence"])
        self.assertEqual((d["price_low_usd"], d["price_high_usd"]), (6490, 6874))

    def test_the_newest_month_s_cheapest_offer_is_the_street_price(self):
        # Several shops and machines on one chip priced in 2026-09 (Strix Halo boxes): the cheapest of that
        # month, $2,999, not the last listed ($3,649.99) nor an older cheaper one ($2,459 in 2026-01); a
        # quoted range counts at its low end.
        d = device()
        build_catalog.apply_sourced_prices([d], [
            {"device_id": "box", "kind": "street_new", "usd": 2459, "what": "older", "as_of": "2026-01-12", "source": "a"},
            {"device_id": "box", "kind": "street_new", "usd": 2999, "what": "cheapest", "as_of": "2026-09-19", "source": "b"},
            {"device_id": "box", "kind": "street_new", "usd": 3649.99, "what": "last", "as_of": "2026-09-30", "source": "c"}])
        self.assertEqual((d["price_usd"], d["price_as_of"]), (2999, "2026-09-19"))
        ranged = device()
        build_catalog.apply_sourced_prices([ranged], [
            {"device_id": "box", "kind": "street_new", "usd": 599, "what": "first", "as_of": "2025-09", "source": "a"},
            {"device_id": "box", "kind": "street_new", "usd": None, "usd_low": 660, "usd_high": 800, "what": "range",
             "as_of": "2026-09", "source": "b"}])
        self.assertEqual((ranged["price_usd"], ranged["price_as_of"]), (660, "2026-09"))

    def test_a_missing_part_leaves_the_machine_unpriced(self):
        d = device()
        build_catalog.apply_sourced_prices([d], [
            {"device_id": "box", "kind": "component", "component": "cpu", "usd": 1300, "what": "cpu",
             "as_of": "2024-06", "source": "a"}])
        self.assertIsNone(d["price_usd"])


if __name__ == "__main__":
    unittest.main()
