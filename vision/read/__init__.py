"""Reading a frame: the dice detector finds dice (`Detection`), pips are found inside each
(`PipFinding`), read as a face (`FaceRead`), the classifier scores the doubtful ones, and the
reader puts it together as `vision.types.DieReading`."""
