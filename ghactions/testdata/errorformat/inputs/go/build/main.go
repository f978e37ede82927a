package main

func main() {
	x := 1
	println(undefinedName)
	var s string = 5
}
