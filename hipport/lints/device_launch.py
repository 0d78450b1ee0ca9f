"""'device-launch': a <<<>>> launch inside __global__ or __device__ code. The parser marks such launches
(LaunchSite.in_device_code); the engine makes the hit, so the matcher has no code of its own."""

from __future__ import annotations

from hipport.lints.matcher import LAUNCH, Matcher

MATCHER = Matcher("device-launch", LAUNCH, frozenset())
