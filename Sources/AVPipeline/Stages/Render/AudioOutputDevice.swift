/// An audio output device as the renderer sees it: it was opened with some format (whatever the
/// device granted), pulls PCM from the attached `RenderFeed` on its own thread while running, and
/// can be paused and closed. AVPipelineDevices has the SDL2 one; tests drive a manual one.
public protocol AudioOutputDevice: AnyObject, Sendable {
    /// The format the device takes (interleaved u8/s16/s32/flt).
    var format: AudioFormat { get }
    /// Sample frames the device asks for per callback (its own buffering).
    var bufferFrames: Int { get }
    /// Connects the feed the device reads; called once, before the first `setPaused(false)`.
    func attach(_ feed: RenderFeed)
    /// Holds (true) or runs (false) the device; a held device does not read its feed.
    func setPaused(_ paused: Bool)
    /// Stops the device for good; idempotent.
    func close()
}
