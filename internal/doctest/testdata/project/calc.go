// Package calc is the scratch project the docs' commands run in.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }
