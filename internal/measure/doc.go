// Package measure holds what the measurement tests share: they run only
// when asked (they take minutes and print tables for the docs, they do not
// assert targets), and take their sizes from the environment.
package measure
