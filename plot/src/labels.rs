//! Direct labels beside the ends of lines, moved apart just enough not to
//! overlap: a line is named where it ends rather than in a legend.

/// Vertical positions for labels wanted at `wanted` (pixels, any order),
/// each at least `gap` from the next, within `top..=bottom`, in the order
/// given. Labels keep their vertical order and move as little as this
/// two-pass push allows.
pub fn spread(wanted: &[i32], gap: i32, top: i32, bottom: i32) -> Vec<i32> {
    let mut order: Vec<usize> = (0..wanted.len()).collect();
    order.sort_by_key(|&i| (wanted[i], i));
    let mut placed: Vec<i32> = order
        .iter()
        .map(|&i| wanted[i].clamp(top, bottom))
        .collect();
    for k in 1..placed.len() {
        placed[k] = placed[k].max(placed[k - 1] + gap);
    }
    if let Some(&last) = placed.last() {
        if last > bottom {
            let n = placed.len();
            placed[n - 1] = bottom;
            for k in (0..n - 1).rev() {
                placed[k] = placed[k].min(placed[k + 1] - gap);
            }
        }
    }
    let mut out = vec![0; wanted.len()];
    for (k, &i) in order.iter().enumerate() {
        out[i] = placed[k];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn labels_move_apart_and_keep_their_order() {
        assert_eq!(spread(&[100, 50, 200], 20, 0, 300), vec![100, 50, 200]);
        assert_eq!(spread(&[100, 101, 102], 20, 0, 300), vec![100, 120, 140]);
        assert_eq!(spread(&[295, 298, 300], 20, 0, 300), vec![260, 280, 300]);
    }
}
