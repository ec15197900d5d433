/// What an encoder loop (`EncoderCore`) is fed: frames already in the encoder's format and size,
/// stamped in its time base, then nil once the input has ended (the loop then flushes).
///
/// Each medium has one feed: `AudioFeed` converts, re-chunks and stamps PCM; a video feed would
/// convert the pixel format and size, rebase times and force keyframes. The loop stays one, and so
/// does the check that the encoder takes what it is sent (`CodecContext.sendExpectingRoom`).
protocol EncoderFeed: AnyObject {
    /// The next frame for the encoder, or nil at the end of the input.
    func next() async throws -> Frame?
}
