//! The global segmentation: the cuts that make each chunk's units agree with the chunk's mean the most, under the
//! size cap, with chunk sizes kept near a target.
//!
//! A segmentation scores the sum over its chunks of
//! `coherence - weight * contrast * units * ((size - target) / target)^2`, where `coherence` is the sum of each
//! unit's cosine to its chunk's mean (see [`Sums::coherence`]) and `contrast` is how far the text's units are from
//! agreeing on one direction (`1 - coherence of the whole text / n`). Coherence alone is highest for chunks of one
//! unit each; the size term is what keeps chunks near the target, and scaling it by the contrast makes `weight`
//! mean the same for models whose vectors spread widely and for those that crowd into a narrow cone.
//!
//! Dynamic programming over unit boundaries: the best segmentation of the first `b` units ends with a chunk
//! `a..b` that fits, after the best segmentation of the first `a`. The chunks that fit before `b` start at or
//! after a bound that only moves forward, so the work is units times the most units a chunk holds, each chunk
//! scored in `O(dim)` from running sums.

use super::{Extent, Frame, Sums};

/// The boundaries of the best segmentation of the units of `sums` (see the module), and how many chunks were
/// scored to find it. `capacity`: the largest estimated size a chunk may have (a unit larger than it is a chunk of
/// its own); `target`: the size chunks aim for; `weight`: how much a chunk off the target costs, per unit and per
/// squared fraction of the target it is off by, in units of coherence scaled by the contrast. `frame`: what a
/// document's structure adds (see [`Frame`]): chunks that may not reach as far or hold as much, and a bonus for
/// cutting at some boundaries, also scaled by the contrast.
pub fn segment(
    sums: &Sums,
    extent: &Extent,
    capacity: usize,
    target: usize,
    weight: f64,
    frame: Option<&Frame>,
) -> (Vec<usize>, usize) {
    let n = sums.len();
    if n == 0 {
        return (Vec::new(), 0);
    }
    let contrast = (1.0 - sums.coherence(0, n) / n as f64).max(1e-6);
    let target = target.max(1) as f64;
    let cost = weight * contrast;
    let mut best = vec![f64::NEG_INFINITY; n + 1];
    let mut from = vec![0usize; n + 1];
    best[0] = 0.0;
    let (mut lo, mut work) = (0, 0);
    for b in 1..=n {
        while lo + 1 < b && extent.size(lo, b) > capacity {
            lo += 1;
        }
        // The bonus of ending a chunk at `b` (none at the end of the text).
        let bonus = match frame {
            Some(f) if b < n => f.bonus[b] * contrast,
            _ => 0.0,
        };
        for a in lo..b {
            // A unit alone is always allowed (the engine cuts it further if it must).
            if a + 1 < b && frame.is_some_and(|f| !f.allows(a, b, extent)) {
                continue;
            }
            work += 1;
            let off = (extent.size(a, b) as f64 - target) / target;
            let score = best[a] + sums.coherence(a, b) - cost * (b - a) as f64 * off * off + bonus;
            // Strictly better only: on a tie the earliest start, the longest last chunk, wins.
            if score > best[b] {
                best[b] = score;
                from[b] = a;
            }
        }
    }
    let mut cuts = Vec::new();
    let mut b = from[n];
    while b > 0 {
        cuts.push(b);
        b = from[b];
    }
    cuts.reverse();
    (cuts, work)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(rows: &[[f32; 2]]) -> Sums {
        Sums::new(&rows.concat(), 2).unwrap()
    }

    #[test]
    fn a_hand_checked_case() {
        // Four units of size 10 (no gaps), two topics: x, x, y, y. Contrast 1 - |(2, 2)| / 4 = 1 - .707 = .293.
        let s = sums(&[[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]);
        let extent = Extent::new(&[10; 4], &[0; 3], 0);
        // Target 20, weight 1: [x x][y y] scores 2 + 2 with no size cost; [x][x y y] scores
        // 1 + 2.24 - .293 * (1 * .25 + 3 * .25) = 2.95; one chunk scores 2.83 - .293 * 4 * 1 = 1.66.
        let (cuts, _) = segment(&s, &extent, 40, 20, 1.0, None);
        assert_eq!(cuts, [2]);
        // Under a cap of 10 every unit is a chunk.
        assert_eq!(segment(&s, &extent, 10, 20, 1.0, None).0, [1, 2, 3]);
        // A target of 40 with a heavy weight: one chunk (the cost of two chunks of 20 is .293 * 4 * .25 * 100 =
        // 29 against a coherence gain of 1.17).
        assert_eq!(
            segment(&s, &extent, 40, 40, 100.0, None).0,
            Vec::<usize>::new()
        );
        // With no weight, coherence alone: every unit alone scores 4, as does [x x][y y]; the tie goes to the
        // longest last chunks.
        assert_eq!(segment(&s, &extent, 40, 20, 0.0, None).0, [2]);
    }

    #[test]
    fn the_cut_moves_to_the_topic_switch_within_the_cap() {
        // Topics of 3 and 5 units of size 10 under a cap of 60 aiming at 40: the cut at the switch (3) costs
        // less coherence than the even cut (4).
        let rows: Vec<[f32; 2]> = (0..8)
            .map(|i| if i < 3 { [1.0, 0.1] } else { [0.1, 1.0] })
            .collect();
        let extent = Extent::new(&[10; 8], &[0; 7], 0);
        assert_eq!(segment(&sums(&rows), &extent, 60, 40, 1.0, None).0, [3]);
    }

    #[test]
    fn work_is_units_times_units_per_chunk() {
        // 2,000 units of size 1 under a cap of 16: each boundary looks back at most 16 units.
        let n = 2000;
        let rows: Vec<f32> = (0..n)
            .flat_map(|i| [(i as f32).sin(), (i as f32).cos()])
            .collect();
        let s = Sums::new(&rows, 2).unwrap();
        let extent = Extent::new(&vec![1; n], &vec![0; n - 1], 0);
        let (cuts, work) = segment(&s, &extent, 16, 12, 1.0, None);
        assert!(work <= n * 16, "{work}");
        // Doubling the units doubles the work: linear, not quadratic.
        let rows2: Vec<f32> = rows.iter().chain(&rows).copied().collect();
        let s2 = Sums::new(&rows2, 2).unwrap();
        let extent2 = Extent::new(&vec![1; 2 * n], &vec![0; 2 * n - 1], 0);
        let (_, work2) = segment(&s2, &extent2, 16, 12, 1.0, None);
        assert!(work2 <= 2 * work + 16 * 16, "{work} {work2}");
        // Every chunk fits.
        let mut from = 0;
        for &c in cuts.iter().chain([n].iter()) {
            assert!(extent.size(from, c) <= 16);
            from = c;
        }
    }

    #[test]
    fn a_frame_limits_reach_and_capacity_and_rewards_its_cuts() {
        // Four units of one meaning: with no frame, one chunk under a cap of 40 aiming at 40.
        let s = sums(&[[1.0, 0.0]; 4]);
        let extent = Extent::new(&[10; 4], &[0; 3], 0);
        assert_eq!(
            segment(&s, &extent, 40, 40, 1.0, None).0,
            Vec::<usize>::new()
        );
        let open = Frame {
            reach: vec![4; 4],
            capacity: vec![40; 4],
            bonus: vec![0.0; 4],
        };
        assert_eq!(
            segment(&s, &extent, 40, 40, 1.0, Some(&open)).0,
            Vec::<usize>::new()
        );
        // A chunk from unit 0 may not reach past unit 1 (a section ends there): sizes 10 and 30 (cost .75) beat
        // 20 and 20 (cost 1).
        let reach = Frame {
            reach: vec![2, 4, 4, 4],
            ..open.clone()
        };
        assert_eq!(segment(&s, &extent, 40, 40, 1.0, Some(&reach)).0, [1]);
        // A chunk from unit 1 holds 20 at most (its context takes the rest).
        let capacity = Frame {
            reach: vec![1, 4, 4, 4],
            capacity: vec![40, 20, 40, 40],
            bonus: vec![0.0; 4],
        };
        let cuts = segment(&s, &extent, 40, 40, 1.0, Some(&capacity)).0;
        assert_eq!(cuts.first(), Some(&1));
        let ends: Vec<usize> = cuts.iter().copied().chain([4]).collect();
        for (a, b) in std::iter::once(0).chain(cuts.iter().copied()).zip(ends) {
            assert!(b == a + 1 || capacity.allows(a, b, &extent), "{cuts:?}");
        }
        // A bonus at 3 large enough against the size cost moves a cut there.
        let bonus = Frame {
            bonus: vec![0.0, 0.0, 0.0, 100.0],
            ..open
        };
        assert_eq!(segment(&s, &extent, 40, 40, 1.0, Some(&bonus)).0, [3]);
    }
}
