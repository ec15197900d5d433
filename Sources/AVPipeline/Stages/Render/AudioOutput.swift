/// An audio device as the renderer sees it: it was opened with some format (whatever the device
/// granted), pulls PCM from the attached `RenderFeed` on its own thread while running, and can be
/// paused and closed. `SDLAudioOutput` is the real one; tests drive a manual one.
protocol AudioOutput: AnyObject, Sendable {
    /// The format the device takes (interleaved u8/s16/s32/flt).
    var format: AudioFormat { get }
    /// Sample frames the device asks for per callback (its own buffering).
    var bufferFrames: Int { get }
    /// Connects the feed the device reads; called once, before the first `setPaused(false)`.
    func attach(_ feed: RenderFeed)
    func setPaused(_ paused: Bool)
    /// Stops the device for good; idempotent.
    func close()
}
