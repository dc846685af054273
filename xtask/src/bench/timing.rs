//! Timing helpers: seconds per call, medians, and the memcpy baseline.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Seconds per call of `f`: calls it until `min` has passed (at least once), so small
/// inputs are timed over many calls and large ones over one.
pub fn per_call<T>(min: Duration, mut f: impl FnMut() -> T) -> f64 {
    let start = Instant::now();
    let mut calls = 0u32;
    loop {
        black_box(f());
        calls += 1;
        let spent = start.elapsed();
        if spent >= min {
            return spent.as_secs_f64() / f64::from(calls);
        }
    }
}

/// The median of `v` (the mean of the middle two for an even count); NaN when empty.
pub fn median(v: &[f64]) -> f64 {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Geometric mean of positive values; NaN when there are none.
pub fn geomean(v: &[f64]) -> f64 {
    let logs: Vec<f64> = v
        .iter()
        .filter(|x| x.is_finite() && **x > 0.0)
        .map(|x| x.ln())
        .collect();
    if logs.is_empty() {
        return f64::NAN;
    }
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}

/// Copies of a set of buffers into preallocated (and touched) destinations: the
/// baseline, the same byte count as the files measured.
pub struct Memcpy {
    src: Vec<Vec<u8>>,
    dst: Vec<Vec<u8>>,
}

impl Memcpy {
    /// A baseline copying each of `buffers` once per pass.
    pub fn new<'a>(buffers: impl IntoIterator<Item = &'a [u8]>) -> Self {
        let src: Vec<Vec<u8>> = buffers.into_iter().map(<[u8]>::to_vec).collect();
        let dst = src.iter().map(|s| vec![1u8; s.len()]).collect();
        Memcpy { src, dst }
    }

    /// Seconds for one pass over every buffer.
    pub fn time(&mut self, min: Duration) -> f64 {
        let (src, dst) = (&self.src, &mut self.dst);
        per_call(min, || {
            for (s, d) in src.iter().zip(dst.iter_mut()) {
                black_box(&mut *d).copy_from_slice(black_box(s));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_means() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert!((geomean(&[1.0, 4.0]) - 2.0).abs() < 1e-12);
    }
}
