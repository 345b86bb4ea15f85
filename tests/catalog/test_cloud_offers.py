"""The catalog's cloud-offer rules against hand-made rows whose right answers are known:
check_catalog.py's copy, duplicate and spot checks, and cloud_listings.py's GPU mapping,
spot filter and per-GPU grouping (python3 -m unittest discover -s tests/catalog)."""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "catalog"))

import check_catalog  # noqa: E402
import cloud_listings  # noqa: E402


def offer(provider, device, count, price, billing="on-demand", instance=None, region=None):
    return {"provider": provider, "device_id": device, "device_count": count, "usd_per_hour": price,
            "billing": billing, "instance": instance, "region": region}


def copy_errors(offers):
    c = check_catalog.Checker()
    check_catalog.check_offer_copies(c, "cloud_offers.json", offers)
    return c.errors


class OfferChecks(unittest.TestCase):
    def test_the_three_errors_of_issue_30_are_refused(self):
        # RunPod's L40S as the reference copied it: spot $0.86 above on-demand $0.43.
        self.assertTrue(any("reversed" in e for e in copy_errors([
            offer("RunPod", "l40s", 1, 0.43, instance="1x_L40S_SECURE"),
            offer("RunPod", "l40s", 1, 0.86, "spot", instance="1x_L40S_SECURE")])))
        # DigitalOcean's page copied twice: one instance listed twice.
        self.assertTrue(any("listed twice" in e for e in copy_errors([
            offer("DigitalOcean", "h100-sxm", 8, 23.92), offer("DigitalOcean", "h100-sxm", 8, 23.92)])))
        # Two GPUs of one provider at one price with nothing to tell the rows apart.
        self.assertTrue(any("copied row" in e for e in copy_errors([
            offer("Vast.ai", "a100-40gb-sxm", 8, 5.87, "marketplace"),
            offer("Vast.ai", "rtx-5090", 8, 5.87, "marketplace")])))
        # One instance type named for two GPUs.
        self.assertTrue(any("named for" in e for e in copy_errors([
            offer("P", "l4", 1, 0.44, instance="1x_X"), offer("P", "a40", 1, 0.40, instance="1x_X")])))

    def test_equal_list_prices_of_different_instances_pass(self):
        # RunPod lists both the L4 and the A40 at $0.44 per GPU: two instance types, no copy.
        self.assertEqual(copy_errors([
            offer("RunPod", "l4", 1, 0.44, instance="1x_L4_SECURE"),
            offer("RunPod", "a40", 1, 0.44, instance="1x_A40_SECURE"),
            offer("RunPod", "a40", 1, 0.30, "spot", instance="1x_A40_SECURE")]), [])


class ListingMapping(unittest.TestCase):
    def device(self, provider, gpu, instance):
        return cloud_listings.listing_device(provider, gpu, instance, 1)[0]

    def test_the_text_settles_the_part_or_nothing_is_guessed(self):
        self.assertEqual(self.device("Hyperbolic", "H100 (GpuInfo name NVIDIA-H100-80GB-HBM3, 81559 MiB)", "1x-H100"),
                         "h100-sxm")  # HBM3: the SXM5 part; the PCIe card has HBM2e
        self.assertIsNone(self.device("Massedcompute via Shadeform", "H100", "massedcompute_H100"))
        self.assertEqual(self.device("Lambda", "A100 (40960 MiB per GPU per GpuInfo)", "gpu_1x_a100_sxm4"), "a100-40gb-sxm")
        self.assertIsNone(self.device("Lambda", "A100 (40960 MiB per GPU per GpuInfo)", "gpu_1x_a100"))
        self.assertEqual(self.device("AWS", "A100-80GB (81920 MiB per GPU)", "p4de.24xlarge"), "a100-80gb-sxm")
        self.assertEqual(self.device("RunPod", "A100-80GB", "1x_A100-80GB_SECURE"), "a100-80gb-pcie")
        self.assertIsNone(self.device("Vast.ai", "V100 Tesla_V100 (GpuInfo total 16384 MiB)", "1x-Tesla_V100"))
        self.assertEqual(self.device("RunPod", "L40S", "1x_L40S_SECURE"), "l40s")
        self.assertEqual(self.device("RunPod", "L4", "1x_L4_SECURE"), "l4")
        self.assertIsNone(self.device("RunPod", "L40", "1x_L40_SECURE"))  # not "L40" + "SECURE" = L40S
        self.assertEqual(self.device("DigitalOcean", "NVIDIA L40S 48GB", "NVIDIA L40s"), "l40s")
        # An SXM board's NVLink named in the instance is not the NVL card.
        self.assertEqual(self.device("Amaya via Shadeform", "H200", "amaya_H200-sxm5x8-NVLINK"), "h200-sxm")
        self.assertEqual(self.device("Vast.ai", "H100 H100_NVL (GpuInfo total 191660 MiB)", "2x-H100_NVL"), "h100-nvl")
        # Vast states the total over the GPUs: 163,840 MiB over 4 = 40 GiB each.
        self.assertEqual(cloud_listings.listing_device("Vast.ai", "A100 A100_SXM4 (GpuInfo total 163840 MiB)",
                                                       "4x-A100_SXM4-32-65536", 4)[0], "a100-40gb-sxm")

    def test_a_row_whose_spot_is_not_below_on_demand_is_no_offer(self):
        row = {"provider": "RunPod", "instance": "1x_L40S_SECURE", "gpu_name": "L40S", "gpu_count": 1,
               "usd_per_hour": 0.43, "spot_usd_per_hour": 0.86, "billing": "on-demand (SECURE cloud)",
               "source": "skypilot-org/skypilot-catalog@0727c2bd:catalogs/v7/runpod/vms.csv"}
        rows, skipped = cloud_listings.listing_rows([row])
        self.assertEqual(rows, [])
        self.assertIn("above on-demand", skipped[0]["reason"])

    def test_sizes_at_one_per_gpu_price_become_one_offer(self):
        # RunPod MI300X: 1x $2.49, 2x $4.98, 8x $19.92 = $2.49 per GPU each; a 4x at $10.50
        # ($2.625 per GPU) is another price and stays an instance of its own.
        def row(n, price):
            return {"provider": "RunPod", "device_id": "mi300x", "gpu_name": "MI300X", "device_count": n,
                    "usd_per_hour": price, "billing": "on-demand", "instance": f"{n}x_MI300X_SECURE",
                    "sources": ["s"], "notes": []}
        out = cloud_listings.group_per_gpu([row(1, 2.49), row(2, 4.98), row(8, 19.92), row(4, 10.50)])
        self.assertEqual(len(out), 2)
        grouped = next(o for o in out if o.get("gpu_counts"))
        self.assertEqual(grouped["gpu_counts"], [1, 2, 8])
        self.assertAlmostEqual(grouped["usd_per_gpu_hour"], 2.49)
        self.assertIsNone(grouped["instance"])
        single = next(o for o in out if not o.get("gpu_counts"))
        self.assertEqual((single["device_count"], single["usd_per_hour"]), (4, 10.50))


if __name__ == "__main__":
    unittest.main()
