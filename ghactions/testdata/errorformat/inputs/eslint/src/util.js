function id(x) { return x }
id(undefinedThing);
