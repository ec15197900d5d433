import ArgumentParser
import AVPipeline
import AVPipelineDevices

/// `record`'s picture sources: a screen (whole, or a region of it) or a camera. The encoder's
/// settings are `VideoEncodingArguments`, whose `--fps` is here the rate asked of the device.
struct VideoCaptureArguments: ParsableArguments {
    @Option(name: .customLong("screen"), defaultAsFlag: "",
            help: ArgumentHelp("Record the screen of this X11 display (default: $DISPLAY's).", valueName: "display"))
    var screen: String?

    @Option(help: ArgumentHelp("Record only this part of the screen: WxH+X+Y (1280x720+0+0); implies --screen.", valueName: "geometry"))
    var region: String?

    @Option(help: ArgumentHelp("Record this V4L2 camera (/dev/video0; see --list-devices).", valueName: "device"))
    var camera: String?

    @Option(help: ArgumentHelp("Picture size asked of the camera: WxH (default: the camera's).", valueName: "size"))
    var videoSize: String?

    /// Whether pictures are recorded at all.
    var recordsPictures: Bool { screen != nil || region != nil || camera != nil }

    /// Called by `record`'s `validate()`.
    func check() throws {
        if camera != nil, screen != nil || region != nil {
            throw ValidationError("record either a screen (--screen/--region) or a camera (--camera), not both")
        }
        if let region, ScreenRegion(parsing: region) == nil {
            throw ValidationError("--region takes WxH+X+Y, e.g. 1280x720+0+0 (got '\(region)')")
        }
        if let videoSize {
            guard camera != nil else { throw ValidationError("--video-size is for --camera (a screen's size is its --region)") }
            guard Self.size(videoSize) != nil else { throw ValidationError("--video-size takes WxH, e.g. 1280x720 (got '\(videoSize)')") }
        }
    }

    /// The device to record, when pictures are recorded.
    var device: VideoCaptureDevice? {
        if let camera { return .camera(path: camera) }
        guard recordsPictures else { return nil }
        return .screen(display: screen.flatMap { $0.isEmpty ? nil : $0 }, region: region.flatMap(ScreenRegion.init(parsing:)))
    }

    var size: (width: Int, height: Int)? { videoSize.flatMap(Self.size) }

    private static func size(_ text: String) -> (width: Int, height: Int)? {
        ScreenRegion(parsing: text).flatMap { $0.x == 0 && $0.y == 0 && !text.contains("+") ? ($0.width, $0.height) : nil }
    }
}
