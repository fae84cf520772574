// Package config is plagd's one configuration: the Config type, its
// defaults, the YAML file that overrides them (configs/plagd.yaml documents
// every field and is checked to equal Default) and the environment that
// overrides the file (PLAGD_<SECTION>_<FIELD>, ApplyEnv).
//
// Every section is its own type with its own Validate, so an error names the
// field an operator must change ("engine.top_k must be at least 1, got 0").
// Config.Validate runs them all and the few rules that join two sections.
//
// The package reads the file and the environment only; it opens no
// connection and imports none of the packages that do (the cluster's
// security files are read by cluster/remote.LoadSecurity).
package config
