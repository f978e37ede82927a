package vet

import "fmt"

func Say(n int) string {
	return fmt.Sprintf("%s items", n)
}
