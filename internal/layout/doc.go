// Package layout checks the shape of the repository that docs/ARCHITECTURE.md
// promises: which packages may do I/O and which may import what. The checks
// ask the go tool for the packages' real imports (go list), so a promise
// broken in code fails here, not in review.
package layout
