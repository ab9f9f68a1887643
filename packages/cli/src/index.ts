// tangent: The tangent command.
export {}
