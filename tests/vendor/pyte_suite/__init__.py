# pyte 0.8.2's own tests (LGPL-3.0, see LICENSE and AUTHORS), run against termux's Screen/ByteStream/Stream.
