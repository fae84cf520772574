// Package archive holds the types that say what a document of the archive
// is, shared by every layer that shows one: the reports (pure), the store
// (PostgreSQL), the engine and the web interface. It has no code that
// runs and imports nothing, so the pure packages can use it.
package archive
