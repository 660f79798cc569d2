//! The distance curve between neighbouring windows of units, and the thresholds that pick its breakpoints.
//!
//! Boundary `i` (for `1 <= i < n`) lies between units `i - 1` and `i`; the curve holds one value per boundary, at
//! index `i - 1`.

use super::Sums;

/// The cosine distance (`1 - cos`, from 0 for the same direction to 2 for opposite ones) between the windows either
/// side of each boundary: the `window` units before it and the `window` units after it (fewer at the text's
/// edges), each window the mean of its unit vectors. A window of zero vectors has no direction: its distance to
/// anything is 1.
pub fn distances(sums: &Sums, window: usize) -> Vec<f64> {
    let n = sums.len();
    let w = window.max(1);
    let (mut left, mut right) = (vec![0.0; sums.dim()], vec![0.0; sums.dim()]);
    (1..n)
        .map(|i| {
            sums.range(i.saturating_sub(w), i, &mut left);
            sums.range(i, (i + w).min(n), &mut right);
            1.0 - cosine(&left, &right)
        })
        .collect()
}

/// The cosine of two vectors; 0 when either is zero.
pub(crate) fn cosine(a: &[f64], b: &[f64]) -> f64 {
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        return 0.0;
    }
    (ab / (aa.sqrt() * bb.sqrt())).clamp(-1.0, 1.0)
}

/// The `p`-th percentile (0 to 100) of `values`, interpolated linearly between the two nearest ranks (numpy's
/// default); NaN for no values.
pub fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = p.clamp(0.0, 100.0) / 100.0 * (sorted.len() - 1) as f64;
    let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
}

/// The mean and the (population) standard deviation of `values`.
pub fn mean_std(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// The rise of the curve at each point: how much it grew from the point before (0 at the first point). A
/// backward difference, so that the largest rise is at the boundary the distance jumped up to, not before it.
pub fn rise(values: &[f64]) -> Vec<f64> {
    (0..values.len())
        .map(|i| i.checked_sub(1).map_or(0.0, |p| values[i] - values[p]))
        .collect()
}

/// The indices of `values` strictly above `threshold`.
pub fn above(values: &[f64], threshold: f64) -> Vec<usize> {
    (0..values.len())
        .filter(|&i| values[i] > threshold)
        .collect()
}

/// The similarity curve (`1 - distance`) smoothed by a moving average of three points (two at the ends).
pub fn smoothed_similarity(distances: &[f64]) -> Vec<f64> {
    let n = distances.len();
    (0..n)
        .map(|i| {
            let (a, b) = (i.saturating_sub(1), (i + 2).min(n));
            let sum: f64 = distances[a..b].iter().map(|d| 1.0 - d).sum();
            sum / (b - a) as f64
        })
        .collect()
}

/// The local minima of `curve` inside it (not at its first or last point), each as the run of points of its flat bottom (first and last, most often the same)
/// with its depth: how far the curve climbs back on its left and on its right before it turns down again, added
/// up (TextTiling's depth score).
pub fn minima(curve: &[f64]) -> Vec<(usize, usize, f64)> {
    let n = curve.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && curve[j + 1] == curve[j] {
            j += 1;
        }
        // Not at the curve's ends: its windows are cut short there, and it has no side to climb back on.
        let falls_in = i > 0 && curve[i] < curve[i - 1];
        let rises_out = j + 1 < n && curve[j + 1] > curve[j];
        if falls_in && rises_out {
            let mut l = i;
            while l > 0 && curve[l - 1] >= curve[l] {
                l -= 1;
            }
            let mut r = j;
            while r + 1 < n && curve[r + 1] >= curve[r] {
                r += 1;
            }
            out.push((i, j, (curve[l] - curve[i]) + (curve[r] - curve[i])));
        }
        i = j + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn percentiles_interpolate_as_numpy_does() {
        let v = [3.0, 1.0, 4.0, 1.0, 5.0];
        // numpy.percentile([3, 1, 4, 1, 5], [0, 25, 50, 90, 100]) == [1, 1, 3, 4.6, 5]
        for (p, want) in [
            (0.0, 1.0),
            (25.0, 1.0),
            (50.0, 3.0),
            (90.0, 4.6),
            (100.0, 5.0),
        ] {
            assert!(close(percentile(&v, p), want), "{p}: {}", percentile(&v, p));
        }
        assert!(percentile(&[], 50.0).is_nan());
        assert!(close(percentile(&[2.0], 95.0), 2.0));
    }

    #[test]
    fn mean_std_and_rise() {
        let (m, s) = mean_std(&[1.0, 2.0, 3.0, 4.0]);
        assert!(close(m, 2.5) && close(s, 1.25f64.sqrt()));
        assert_eq!(rise(&[1.0, 4.0, 9.0, 7.0]), [0.0, 3.0, 5.0, -2.0]);
        assert_eq!(rise(&[2.0]), [0.0]);
        assert_eq!(above(&[0.1, 0.5, 0.5, 0.9], 0.5), [3]);
    }

    #[test]
    fn minima_have_textiling_depths() {
        // Two valleys: 0.2 between peaks 0.9 and 0.8 (depth 0.7 + 0.6), 0.5 between 0.8 and the end 0.7.
        let curve = [0.9, 0.2, 0.8, 0.5, 0.7];
        let got = minima(&curve);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].0, got[0].1), (1, 1));
        assert!(close(got[0].2, 1.3));
        assert_eq!((got[1].0, got[1].1), (3, 3));
        assert!(close(got[1].2, 0.5));
        // A flat bottom is one minimum; a rising or a flat curve has none.
        let flat = minima(&[0.9, 0.3, 0.3, 0.9]);
        assert_eq!((flat.len(), flat[0].0, flat[0].1), (1, 1, 2));
        assert!(close(flat[0].2, 1.2));
        assert!(minima(&[0.25, 0.5, 0.75]).is_empty());
        assert!(minima(&[0.5, 0.5]).is_empty());
    }

    #[test]
    fn smoothing_averages_three_points() {
        let s = smoothed_similarity(&[0.0, 0.3, 0.6]);
        assert!(close(s[0], 0.85) && close(s[1], 0.7) && close(s[2], 0.55));
    }
}
