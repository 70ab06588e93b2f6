//! A small seeded PRNG (SplitMix64). The demo needs reproducible draws, not cryptographic ones,
//! and owning the generator keeps the sequence stable across dependency upgrades.

/// SplitMix64: 64 bits of state, passes BigCrush, trivially seedable from any `u64`.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for one stream of one request: the draws of request `id` never depend on
    /// what other requests drew, so counts stay deterministic whatever the interleaving.
    pub fn for_stream(seed: u64, id: u64, stream: u64) -> Self {
        let mut rng = Rng(seed ^ 0x9E37_79B9_7F4A_7C15);
        let a = rng.next_u64() ^ id.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let b = Rng(a).next_u64() ^ stream.wrapping_mul(0xA24B_AED4_963E_E407);
        Rng(b)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `true` with probability `p` (never for `p <= 0`, so a rate of 0 is exactly "off").
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// Uniform in `lo..=hi`.
    pub fn range_u32(&mut self, lo: u32, hi: u32) -> u32 {
        if hi <= lo {
            return lo;
        }
        let span = u64::from(hi - lo) + 1;
        lo + (self.next_u64() % span) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map(|_| Rng::for_stream(7, 1, 0).next_u64())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::for_stream(7, 1, 0).next_u64(),
            Rng::for_stream(7, 2, 0).next_u64()
        );
        assert_ne!(
            Rng::for_stream(7, 1, 0).next_u64(),
            Rng::for_stream(7, 1, 1).next_u64()
        );
        let mut r = Rng::for_stream(1, 1, 1);
        assert!((0..1000).all(|_| (3..=5).contains(&r.range_u32(3, 5))));
        assert!(!(0..1000).any(|_| r.chance(0.0)));
    }
}
