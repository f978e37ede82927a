// Package tui shows a run to the person watching it. On a terminal it is a
// full-screen view in Bubble Tea's Elm shape (Model, Update, View): the
// loop's events and log lines are messages, the view is drawn from what
// they said and never reads the loop's state; keys pause, stop and open
// an iteration's detail, which a Loader reads from the run's records.
// Elsewhere (a pipe, a CI log, --plain) Plain writes the loop's lines as
// they come, and PlainEvents a line per candidate of a round. Board is the same for a batch: one row per task, with totals.
//
// Only events.go knows the loop's types (its Event and its iteration
// records), so that the package depends on the run's records alone.
package tui
