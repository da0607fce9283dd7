// Package config reads what a user gives a driver in engines.Config: its
// options (Options, with one spelling and one message per kind of value for
// every driver), and an HTTP engine's server URL and port. A driver reads
// all of it in one function called from both CheckConfig and Open, so the
// check before a run and the run itself cannot disagree.
package config
