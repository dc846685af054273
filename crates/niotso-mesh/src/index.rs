//! One-pass lookups that replace per-element scans: which range covers each slot, and
//! how much a lookup table costs the budget.

use std::ops::Range;

use meshfmt_core::Budget;

use crate::error::Result;

/// Bytes a `HashMap` entry of `entry` bytes costs, with the table's control bytes and
/// spare capacity (at most half empty after growth).
pub(crate) fn map_bytes(entries: usize, entry: usize) -> u64 {
    (entries as u64).saturating_mul((entry as u64 + 1).saturating_mul(2))
}

/// Charges `count` values of `T` for `what`.
pub(crate) fn charge<T>(budget: &Budget, what: &'static str, count: usize) -> Result<()> {
    Ok(budget.charge_items::<T>(what, count)?)
}

/// For each of `len` slots, the payload of the last range (in iteration order) that
/// covers it: what applying the ranges one after another, each overwriting its slots,
/// leaves. Ranges past `len` are clipped. O(len + ranges) whatever the overlaps: every
/// slot is assigned once (walking the ranges from the last), and a "next free slot"
/// forest with path halving skips the ones already taken.
pub(crate) fn last_cover<T: Copy>(
    len: usize,
    ranges: impl DoubleEndedIterator<Item = (Range<usize>, T)>,
) -> Vec<Option<T>> {
    let mut owner = vec![None; len];
    // next[i]: i when slot i is free, else a slot further on (len: none left).
    let mut next: Vec<usize> = (0..=len).collect();
    for (r, payload) in ranges.rev() {
        let end = r.end.min(len);
        let mut i = free_from(&mut next, r.start.min(len));
        while i < end {
            owner[i] = Some(payload);
            next[i] = i + 1;
            i = free_from(&mut next, i + 1);
        }
    }
    owner
}

/// The first free slot at or after `i` (`next.len() - 1` when none).
fn free_from(next: &mut [usize], mut i: usize) -> usize {
    while next[i] != i {
        next[i] = next[next[i]];
        i = next[i];
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_ranges_win_and_gaps_stay_empty() {
        // Slots 0..6: [0,4) a, [2,3) b, [5,9) c (clipped), [1,2) d.
        let ranges = vec![(0..4, 'a'), (2..3, 'b'), (5..9, 'c'), (1..2, 'd')];
        let got = last_cover(6, ranges.into_iter());
        assert_eq!(
            got,
            [Some('a'), Some('d'), Some('b'), Some('a'), None, Some('c')]
        );
        assert_eq!(last_cover::<u8>(0, std::iter::empty()), []);
    }

    #[test]
    fn many_full_overlaps_are_linear() {
        // 200,000 ranges each covering all 100,000 slots: the last one owns them all.
        let n = 100_000;
        let got = last_cover(n, (0..200_000usize).map(|k| (0..n, k)));
        assert!(got.iter().all(|&o| o == Some(199_999)));
    }
}
