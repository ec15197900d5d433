import ArgumentParser

/// Which picture `frame` writes and at what size (validated by the command, in its order). Its
/// `--width`/`--height` are what a video encode's scaling will take.
struct PictureOptions: ParsableArguments {
    @Option(help: "Width in pixels (the height follows the picture's proportions).")
    var width: Int?

    @Option(help: "Height in pixels (the width follows the picture's proportions).")
    var height: Int?

    @Option(help: "Which video track, counting from 0 in file order (default: the main one).")
    var videoTrack: Int?
}
