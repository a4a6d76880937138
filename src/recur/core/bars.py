"""The bars the book holds its results to; the methods appendix says why each."""

# A result the book states must hold for at least 19 seeds in 20.
ROBUST = (19, 20)

# Chapter 6's model, on fresh sums of each width up to 64 bits: the share of random
# sums right, of long-chain sums right, and the most mean steps beyond the carry at
# 8 bits.
SUCCESS = {"exact": 0.99, "exact, long chains": 0.97, "beyond at 8 bits": 0.5}

# Chapter 6's wide bar: random 1,024-bit and long-chain 256-bit sums.
WIDE_BAR = {"exact": 0.99, "exact, long chains": 0.95}

# The hardest sums (recur.core.hardest) at 8 to 64 bits: every one right, and no
# position more than this many rounds after its carry-in could be known.
HARDEST_PAST = 1
