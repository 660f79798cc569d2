//! Semantic chunking's numbers: where a text's topic shifts, read off one vector per unit (a sentence, or a piece
//! of a sentence too long for a chunk; see [`units`]). Pure arithmetic on row-major `f32` matrices: the caller
//! embeds, this module only decides where to cut, and the engine assembles the chunks (the cuts are a
//! [`Structure`](crate::Structure) of their own, so the size cap stays exact).
//!
//! Two ways to cut:
//! - breakpoints of the distance curve between neighbouring windows of units ([`curve`]): where the distance is
//!   above a threshold (a percentile of the distances, the mean plus a multiple of their standard deviation or
//!   interquartile range, or a percentile of the curve's rises from one boundary to the next), or at the deep local minima of the smoothed
//!   similarity curve. A segment still larger than the cap is then cut at its largest distances ([`fit`]): softer
//!   cuts, across which chunks may overlap.
//! - a global segmentation ([`optimal`]): the cuts that make chunks most coherent, under the cap, with sizes kept
//!   near a target, by dynamic programming over the unit boundaries.
//!
//! Boundary `i` (`1 <= i < n`) is the cut before unit `i`; every result is a sorted list of boundaries.

pub mod curve;
pub mod optimal;
pub mod units;

use crate::error::ChunkError;

/// Vectors as a caller hands them over: the native float32 bytes of a C-ordered matrix (numpy's `tobytes()`), whole
/// values only.
pub fn vectors_from_bytes(bytes: &[u8]) -> Result<Vec<f32>, ChunkError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(ChunkError::invalid(
            "vectors",
            format!(
                "vectors must be float32 bytes (a multiple of 4), got {} bytes",
                bytes.len()
            ),
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// How a semantic chunker decides where to cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Cut where the distance is above the given percentile (0-100) of all the text's distances.
    Percentile,
    /// Cut where the distance is above the mean plus `threshold` standard deviations.
    StdDev,
    /// Cut where the distance is above the mean plus `threshold` interquartile ranges.
    Interquartile,
    /// Cut where the distance rose from the boundary before by more than the given percentile (0-100) of the
    /// rises.
    Gradient,
    /// Cut at the local minima of the smoothed similarity curve at least `threshold` deep.
    Minima,
    /// The global segmentation of [`optimal`]; `threshold` weighs even sizes against coherence.
    Optimal,
}

impl Mode {
    /// The threshold a mode uses when the caller gives none (`None`: one the text decides, see [`Mode::Minima`]).
    pub fn default_threshold(self) -> Option<f64> {
        match self {
            Mode::Percentile | Mode::Gradient => Some(95.0),
            Mode::StdDev => Some(3.0),
            Mode::Interquartile => Some(1.5),
            Mode::Minima => None,
            Mode::Optimal => Some(3.0),
        }
    }

    /// Checks a caller's threshold: a percentile is within 0-100, a depth or a weight is not negative.
    pub fn check_threshold(self, threshold: f64) -> Result<(), ChunkError> {
        let name = self.name();
        let bad = |range: &str| {
            Err(ChunkError::invalid(
                "threshold",
                format!("threshold of mode '{name}' must be {range}, got {threshold}"),
            ))
        };
        if !threshold.is_finite() {
            return bad("a finite number");
        }
        match self {
            Mode::Percentile | Mode::Gradient if !(0.0..=100.0).contains(&threshold) => {
                bad("a percentile from 0 to 100")
            }
            Mode::Minima | Mode::Optimal if threshold < 0.0 => bad(">= 0"),
            _ => Ok(()),
        }
    }
}

/// Unit vectors normalised, and their running sums (in `f64`): the sum of any run of units in `O(dim)`.
#[derive(Debug, Clone)]
pub struct Sums {
    dim: usize,
    /// `(n + 1) * dim` values: row `i` is the sum of the first `i` normalised unit vectors.
    prefix: Vec<f64>,
}

impl Sums {
    /// The sums of `vectors` (`n` rows of `dim` values, row-major). A zero row stays zero. Refuses a length that is
    /// not a multiple of `dim`, and values that are not finite.
    pub fn new(vectors: &[f32], dim: usize) -> Result<Self, ChunkError> {
        if dim == 0 && !vectors.is_empty() || dim > 0 && !vectors.len().is_multiple_of(dim) {
            return Err(ChunkError::invalid(
                "vectors",
                format!(
                    "vectors must be rows of {dim} values, got {} values",
                    vectors.len()
                ),
            ));
        }
        if let Some(i) = vectors.iter().position(|v| !v.is_finite()) {
            return Err(ChunkError::invalid(
                "vectors",
                format!(
                    "vectors must be finite, got {} in row {}",
                    vectors[i],
                    i / dim
                ),
            ));
        }
        let n = vectors.len().checked_div(dim).unwrap_or(0);
        let mut prefix = vec![0.0; (n + 1) * dim];
        for (i, row) in vectors.chunks_exact(dim.max(1)).enumerate().take(n) {
            let norm = row
                .iter()
                .map(|&x| f64::from(x) * f64::from(x))
                .sum::<f64>()
                .sqrt();
            let scale = if norm > 0.0 { 1.0 / norm } else { 0.0 };
            let (done, rest) = prefix.split_at_mut((i + 1) * dim);
            let before = &done[i * dim..];
            for ((out, &b), &x) in rest[..dim].iter_mut().zip(before).zip(row) {
                *out = b + f64::from(x) * scale;
            }
        }
        Ok(Self { dim, prefix })
    }

    /// The number of units.
    pub fn len(&self) -> usize {
        (self.prefix.len() / self.dim.max(1)).saturating_sub(1)
    }

    /// Whether there are no units.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The vectors' dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Writes the sum of the normalised vectors of units `a..b` into `out` (`dim` values).
    pub fn range(&self, a: usize, b: usize, out: &mut [f64]) {
        let d = self.dim;
        let (lo, hi) = (
            &self.prefix[a * d..(a + 1) * d],
            &self.prefix[b * d..(b + 1) * d],
        );
        for ((o, h), l) in out.iter_mut().zip(hi).zip(lo) {
            *o = h - l;
        }
    }

    /// The length of the sum of the normalised vectors of units `a..b`: the sum of each unit's cosine to the
    /// run's mean (for unit vectors, `sum_u cos(v_u, S) = S.S / |S| = |S|`).
    pub fn coherence(&self, a: usize, b: usize) -> f64 {
        let d = self.dim;
        let (lo, hi) = (
            &self.prefix[a * d..(a + 1) * d],
            &self.prefix[b * d..(b + 1) * d],
        );
        hi.iter()
            .zip(lo)
            .map(|(h, l)| (h - l) * (h - l))
            .sum::<f64>()
            .sqrt()
    }
}

/// The estimated size of each run of units, in the chunker's unit: exact in characters (the whitespace between
/// units counted), the sum of the parts in tokens (the engine measures every chunk exactly afterwards).
#[derive(Debug, Clone, Default)]
pub struct Extent {
    /// For each unit, the size of everything before it (from the first unit's start), and up to its end.
    start: Vec<usize>,
    end: Vec<usize>,
    /// What every chunk costs besides its text (special tokens).
    fixed: usize,
}

impl Extent {
    /// The extent of units of the given `sizes` (each with `fixed` included), with `gaps[i]` the size of the
    /// whitespace before unit `i + 1` (`fixed` not included).
    pub fn new(sizes: &[usize], gaps: &[usize], fixed: usize) -> Self {
        let (mut start, mut end) = (
            Vec::with_capacity(sizes.len()),
            Vec::with_capacity(sizes.len()),
        );
        let mut total = 0usize;
        for (i, &s) in sizes.iter().enumerate() {
            if i > 0 {
                total = total.saturating_add(gaps.get(i - 1).copied().unwrap_or(0));
            }
            start.push(total);
            total = total.saturating_add(s.saturating_sub(fixed));
            end.push(total);
        }
        Self { start, end, fixed }
    }

    /// The estimated size of units `a..b` (`a < b`) as one chunk.
    pub fn size(&self, a: usize, b: usize) -> usize {
        self.end[b - 1] - self.start[a] + self.fixed
    }
}

/// What a semantic split needs besides the vectors.
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// How to cut.
    pub mode: Mode,
    /// The mode's threshold (`None`: the mode's default).
    pub threshold: Option<f64>,
    /// How many units on each side of a boundary make up the windows whose distance the curve holds (at least 1).
    pub window: usize,
    /// The most a chunk may hold, in the chunker's unit.
    pub capacity: usize,
    /// [`Mode::Optimal`]: the size chunks aim for.
    pub target: usize,
}

/// What a document's structure asks of the global segmentation (Markdown, see [`optimal::segment`]), unit by unit.
#[derive(Debug, Clone, Default)]
pub struct Frame {
    /// A chunk starting with unit `a` ends at or before unit `reach[a]` (the end of its section, or of the run of
    /// sibling sections it may merge with).
    pub reach: Vec<usize>,
    /// The estimated size a chunk starting with unit `a` may have: the size less its context when the context
    /// counts.
    pub capacity: Vec<usize>,
    /// The bonus of a cut before unit `b` (a heading), in units of the text's contrast (`bonus[0]` is unused).
    pub bonus: Vec<f64>,
}

impl Frame {
    /// Whether units `a..b` may be one chunk.
    pub fn allows(&self, a: usize, b: usize, extent: &Extent) -> bool {
        b <= self.reach[a] && extent.size(a, b) <= self.capacity[a]
    }
}

/// The cuts of a text and the distance curve they were read from.
#[derive(Debug, Clone, Default)]
pub struct Cuts {
    /// The boundaries cut at, sorted: no chunk crosses one.
    pub boundaries: Vec<usize>,
    /// The boundaries [`fit`] added inside segments larger than the capacity, sorted: where the engine cuts such a
    /// segment, with overlap if it has any (it never overlaps across `boundaries`).
    pub soft: Vec<usize>,
    /// The distance at each boundary: `distances[i - 1]` for boundary `i`.
    pub distances: Vec<f64>,
}

/// Where to cut units of the given `extent`, from their vectors' `sums`. With a document's `frame`, the global
/// segmentation keeps to it, and the threshold modes leave a segment larger than the capacity to the structure
/// (no soft cuts).
pub fn cuts(sums: &Sums, extent: &Extent, params: &Params, frame: Option<&Frame>) -> Cuts {
    let distances = curve::distances(sums, params.window);
    let threshold = params.threshold.or(params.mode.default_threshold());
    let breaks = match params.mode {
        Mode::Optimal => {
            let weight = threshold.unwrap_or(3.0);
            let (cuts, _) =
                optimal::segment(sums, extent, params.capacity, params.target, weight, frame);
            return Cuts {
                boundaries: cuts,
                soft: Vec::new(),
                distances,
            };
        }
        Mode::Percentile => {
            let t = curve::percentile(&distances, threshold.unwrap_or(95.0));
            curve::above(&distances, t)
        }
        Mode::StdDev => {
            let (mean, std) = curve::mean_std(&distances);
            curve::above(&distances, mean + threshold.unwrap_or(3.0) * std)
        }
        Mode::Interquartile => {
            let (mean, _) = curve::mean_std(&distances);
            let iqr = curve::percentile(&distances, 75.0) - curve::percentile(&distances, 25.0);
            curve::above(&distances, mean + threshold.unwrap_or(1.5) * iqr)
        }
        Mode::Gradient => {
            let g = curve::rise(&distances);
            let t = curve::percentile(&g, threshold.unwrap_or(95.0));
            curve::above(&g, t)
        }
        Mode::Minima => {
            let minima = curve::minima(&curve::smoothed_similarity(&distances));
            let depth = threshold.unwrap_or_else(|| {
                // TextTiling's cutoff: the minima deeper than their mean less half their deviation.
                let depths: Vec<f64> = minima.iter().map(|m| m.2).collect();
                let (mean, std) = curve::mean_std(&depths);
                mean - std / 2.0
            });
            // Smoothing spreads a peak of the distance over its neighbours: the cut goes to the largest distance
            // at the minimum's bottom or next to it.
            minima
                .into_iter()
                // Never a minimum of no depth (a flat curve).
                .filter(|&(_, _, d)| d > 0.0 && d >= depth)
                .map(|(a, b, _)| {
                    let (a, b) = (a.saturating_sub(1), (b + 1).min(distances.len() - 1));
                    (a..=b).fold(a, |best, i| {
                        if distances[i] > distances[best] {
                            i
                        } else {
                            best
                        }
                    })
                })
                .collect()
        }
    };
    let boundaries: Vec<usize> = breaks.into_iter().map(|i| i + 1).collect();
    if frame.is_some() {
        return Cuts {
            boundaries,
            soft: Vec::new(),
            distances,
        };
    }
    let all = fit(&boundaries, &distances, extent, params.capacity);
    let soft = all
        .into_iter()
        .filter(|b| boundaries.binary_search(b).is_err())
        .collect();
    Cuts {
        boundaries,
        soft,
        distances,
    }
}

/// `cuts` with more cuts in each segment larger than `capacity`: from the segment's start, the next cut is the
/// boundary of largest distance among those that leave a piece of half the capacity up to the capacity (any
/// that fits, when none does), until the rest fits. The engine would cut such a segment at its prose levels; here
/// it is cut where the meaning shifts most, at whole units. Linear in units times the units a chunk holds.
pub fn fit(cuts: &[usize], distances: &[f64], extent: &Extent, capacity: usize) -> Vec<usize> {
    let n = distances.len() + 1;
    if n <= 1 {
        return cuts.to_vec();
    }
    let mut out = Vec::with_capacity(cuts.len());
    let mut from = 0;
    for end in cuts.iter().copied().chain(std::iter::once(n)) {
        let mut pos = from;
        while extent.size(pos, end) > capacity && end - pos > 1 {
            let (mut best, mut best_d, mut best_full) = (pos + 1, f64::NEG_INFINITY, false);
            for j in pos + 1..end {
                let size = extent.size(pos, j);
                if size > capacity && j > pos + 1 {
                    break;
                }
                let full = size * 2 >= capacity;
                let d = distances[j - 1];
                // A piece of at least half the capacity beats a smaller one; then the larger distance, the later
                // boundary on a tie.
                if (full, d) >= (best_full, best_d) {
                    (best, best_d, best_full) = (j, d, full);
                }
            }
            out.push(best);
            pos = best;
        }
        if end < n {
            out.push(end);
        }
        from = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_whole_native_float32s() {
        let values = [1.5f32, -0.25, 0.0];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert_eq!(vectors_from_bytes(&bytes).unwrap(), values);
        assert_eq!(vectors_from_bytes(&[]).unwrap(), Vec::<f32>::new());
        let e = vectors_from_bytes(&bytes[..9]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "vectors must be float32 bytes (a multiple of 4), got 9 bytes"
        );
        assert!(matches!(
            e,
            ChunkError::InvalidArgument { arg: "vectors", .. }
        ));
    }

    /// Unit vectors on the axes of `topics`: unit `i` points along `topics[i]`.
    fn axes(topics: &[usize], dim: usize) -> Vec<f32> {
        let mut v = vec![0.0; topics.len() * dim];
        for (i, &t) in topics.iter().enumerate() {
            v[i * dim + t] = 1.0;
        }
        v
    }

    fn params(mode: Mode, threshold: Option<f64>, capacity: usize) -> Params {
        Params {
            mode,
            threshold,
            window: 1,
            capacity,
            target: capacity,
        }
    }

    #[test]
    fn sums_normalise_rows_and_refuse_bad_vectors() {
        let s = Sums::new(&[3.0, 4.0, 0.0, 0.0, 0.0, 2.0], 2).unwrap();
        assert_eq!(s.len(), 3);
        let mut out = [0.0; 2];
        s.range(0, 3, &mut out);
        assert!((out[0] - 0.6).abs() < 1e-12 && (out[1] - 1.8).abs() < 1e-12);
        assert!((s.coherence(0, 1) - 1.0).abs() < 1e-12);
        assert_eq!(s.coherence(1, 2), 0.0);
        assert!(Sums::new(&[1.0, 2.0, 3.0], 2).is_err());
        let err = Sums::new(&[1.0, f32::NAN], 2).unwrap_err().to_string();
        assert_eq!(err, "vectors must be finite, got NaN in row 0");
        assert!(Sums::new(&[], 0).unwrap().is_empty());
    }

    #[test]
    fn extents_count_gaps_and_fixed_costs_once() {
        // Sizes with 2 fixed tokens each; gaps of 1.
        let e = Extent::new(&[5, 4, 6], &[1, 1], 2);
        assert_eq!(e.size(0, 1), 5);
        assert_eq!(e.size(0, 2), 3 + 1 + 2 + 2);
        assert_eq!(e.size(1, 3), 2 + 1 + 4 + 2);
    }

    #[test]
    fn each_threshold_mode_cuts_at_the_topic_switch() {
        // Three units of topic 0, then three of topic 1: one distance of 1, the others 0.
        let v = axes(&[0, 0, 0, 1, 1, 1], 4);
        let sums = Sums::new(&v, 4).unwrap();
        let extent = Extent::new(&[10; 6], &[1; 5], 0);
        // The distances are [0, 0, 1, 0, 0]: mean .2, deviation .4, no interquartile range; the rises are
        // [0, 0, 1, -1, 0].
        for (mode, threshold) in [
            (Mode::Percentile, None),
            (Mode::StdDev, Some(1.0)),
            (Mode::Interquartile, None),
            (Mode::Gradient, None),
            (Mode::Minima, None),
        ] {
            let got = cuts(&sums, &extent, &params(mode, threshold, 1000), None);
            assert_eq!(got.boundaries, [3], "{mode:?}");
            assert!(got.soft.is_empty());
            assert_eq!(got.distances, [0.0, 0.0, 1.0, 0.0, 0.0]);
        }
        // Three deviations above the mean is 1.4: no cut.
        assert!(
            cuts(&sums, &extent, &params(Mode::StdDev, None, 1000), None)
                .boundaries
                .is_empty()
        );
        // Window 2: the curve [0, .29, 1, .29, 0] peaks at the switch as well.
        let mut p = params(Mode::Percentile, Some(80.0), 1000);
        p.window = 2;
        assert_eq!(cuts(&sums, &extent, &p, None).boundaries, [3]);
        assert!(
            cuts(
                &sums,
                &extent,
                &params(Mode::StdDev, Some(-10.0), 1000),
                None
            )
            .boundaries
            .len()
                == 5
        );
    }

    #[test]
    fn a_segment_over_the_cap_is_cut_at_its_largest_distances() {
        // Eight units of 10 chars and 1 between: a cap of 32 holds three.
        let extent = Extent::new(&[10; 8], &[1; 7], 0);
        let d = [0.1, 0.2, 0.9, 0.1, 0.3, 0.1, 0.2];
        // Boundaries 2 (.2) and 3 (.9) leave pieces of at least 16: 3 wins; from 3, boundaries 5 and 6 (.3 and .1).
        assert_eq!(fit(&[], &d, &extent, 32), [3, 5]);
        // Cuts already made stay; a cut segment that fits is left alone.
        assert_eq!(fit(&[2], &d, &extent, 32), [2, 5]);
        assert_eq!(fit(&[], &d, &extent, 1000), Vec::<usize>::new());
        // A unit alone over the cap stays alone.
        assert_eq!(fit(&[], &[0.5], &Extent::new(&[50, 50], &[1], 0), 10), [1]);
    }

    #[test]
    fn thresholds_are_checked_by_mode() {
        assert!(Mode::Percentile.check_threshold(101.0).is_err());
        assert!(Mode::Gradient.check_threshold(-1.0).is_err());
        assert!(Mode::StdDev.check_threshold(-1.0).is_ok());
        assert!(Mode::Optimal.check_threshold(-0.5).is_err());
        let err = Mode::Minima
            .check_threshold(f64::NAN)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "threshold of mode 'minima' must be a finite number, got NaN"
        );
    }
}
