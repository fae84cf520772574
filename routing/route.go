package routing

// Document routing (Bhagwat et al., section 3.1): the partitions of a document are
// {h mod K : h in bot_m(features)}. Routing reads nothing but the document's
// own features, so ingestion and query pick partitions without asking any of
// them, and two documents with Jaccard similarity s share a partition with
// probability at least 1-(1-s)^m (the paper's lemma 1).

// Route appends to dst[:0] the distinct partitions in [0, k) of a document
// with sorted, deduplicated features fs (Features), routing factor m, in
// ascending order. A document with fewer than m features is routed by all of
// them; one with none goes nowhere. It panics if k < 1.
func Route(fs []uint64, k, m int, dst []int) []int {
	if k < 1 {
		panic("routing: k < 1")
	}
	dst = dst[:0]
	for _, h := range fs[:min(m, len(fs))] {
		p := int(h % uint64(k))
		// m is small (the paper uses up to 10): a linear scan beats a set.
		i := 0
		for i < len(dst) && dst[i] < p {
			i++
		}
		if i < len(dst) && dst[i] == p {
			continue
		}
		dst = append(dst, 0)
		copy(dst[i+1:], dst[i:])
		dst[i] = p
	}
	return dst
}

// Shared is the size of the intersection of two sorted, deduplicated sets.
func Shared(a, b []uint64) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Jaccard is |a ∩ b| / |a ∪ b| of two sorted, deduplicated feature sets;
// two empty sets have similarity 0 (nothing to match on).
func Jaccard(a, b []uint64) float64 {
	return jaccard(Shared(a, b), len(a), len(b))
}

// jaccard is the similarity from the intersection and the set sizes.
func jaccard(shared, na, nb int) float64 {
	u := na + nb - shared
	if u == 0 {
		return 0
	}
	return float64(shared) / float64(u)
}
