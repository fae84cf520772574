package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestSimilarityIndex_ListAndAPI: the stored similarity index is the one
// figure of a document: the API's document, its report (similarity_index
// and, with the default filters, coverage) and the report page say the
// same; the API's list sorts by it (documents without one last) and keeps
// those at or above min_index; a nonsensical min_index or sort is a 400
// that says what to give.
func TestSimilarityIndex_ListAndAPI(t *testing.T) {
	a := newRTArchive(t, true)
	tok := a.token("teacher")
	doc := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d", a.essay), "", nil).must(t, http.StatusOK).json(t)
	si, ok := doc["document"].(map[string]any)["similarity_index"].(map[string]any)
	if !ok {
		t.Fatalf("the essay has no similarity index: %v", doc["document"])
	}
	value := si["value"].(float64)
	if value <= 0 || value >= 1 || si["sources"].(float64) < 1 || si["top_source"].(float64) != float64(a.src) {
		t.Fatalf("the essay's index %v: want a share from its source %d on top", si, a.src)
	}
	rep := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d/report", a.essay), "", nil).must(t, http.StatusOK).json(t)
	if rep["similarity_index"] != value || rep["coverage"] != value {
		t.Fatalf("the report says index %v, coverage %v; the document %v", rep["similarity_index"], rep["coverage"], value)
	}
	// Counting quotations changes the report's figure, not the index.
	counted := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents/%d/report?quotes=0", a.essay), "", nil).must(t, http.StatusOK).json(t)
	if counted["similarity_index"] != value || counted["coverage"].(float64) <= value {
		t.Fatalf("with quotations counted: index %v, coverage %v; want the index %v and a larger coverage",
			counted["similarity_index"], counted["coverage"], value)
	}
	pct := fmt.Sprintf("%.1f %%", value*100)
	a.get("teacher", fmt.Sprintf("/documents/%d", a.essay)).must(t, http.StatusOK, "Similarity index", `id="overall">`+pct)
	a.get("teacher", fmt.Sprintf("/documents/%d?quotes=0", a.essay)).must(t, http.StatusOK, "With these filters", `id="similarity-index">`+pct)
	a.get("teacher", "/documents?sort=index").must(t, http.StatusOK, `<span class="index-value">`+pct+`</span>`)

	list := a.api(tok, "GET", "/api/v1/documents?sort=index", "", nil).must(t, http.StatusOK).json(t)
	last, seenNull := 2.0, false
	for _, d := range list["documents"].([]any) {
		x, ok := d.(map[string]any)["similarity_index"].(map[string]any)
		if !ok {
			seenNull = true
			continue
		}
		if v := x["value"].(float64); v > last || seenNull {
			t.Fatalf("sorted by index, the list goes %v then %v (or a document without an index came first)", last, v)
		} else {
			last = v
		}
	}
	over := a.api(tok, "GET", fmt.Sprintf("/api/v1/documents?min_index=%.0f", value*100-1), "", nil).must(t, http.StatusOK).json(t)
	for _, d := range over["documents"].([]any) {
		x, ok := d.(map[string]any)["similarity_index"].(map[string]any)
		if !ok || x["value"].(float64) < value-0.01 {
			t.Fatalf("min_index kept a document below it: %v", d)
		}
	}
	if !strings.Contains(fmt.Sprint(over["documents"]), fmt.Sprintf("id:%d ", a.essay)) {
		t.Fatalf("min_index just below the essay's index left the essay out: %v", over["documents"])
	}
	a.api(tok, "GET", "/api/v1/documents?min_index=lots", "", nil).must(t, http.StatusBadRequest, "min_index", "percentage")
	a.api(tok, "GET", "/api/v1/documents?sort=best", "", nil).must(t, http.StatusBadRequest, "sort")
}
