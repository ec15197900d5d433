/// Where a picture goes in a window: as large as fits, with its display proportions (pixel aspect
/// ratio and rotation applied), centred, the rest black (letterbox or pillarbox). A pure value.
package struct PictureLayout: Equatable, Sendable {
    package struct Box: Equatable, Sendable {
        package var x: Int, y: Int, width: Int, height: Int
    }

    /// The upright picture's box in the window.
    package let box: Box
    /// The box to draw the stored (unrotated) picture into, so that turning it by `rotation`
    /// about its centre fills `box`: at 90° and 270° its sides are swapped.
    package let drawBox: Box

    package init(format: VideoFormat, windowWidth: Int, windowHeight: Int) {
        let (width, height) = Self.displaySize(of: format)
        // The largest box of the picture's proportions that fits, in whole pixels, centred.
        var boxHeight = windowHeight
        var boxWidth = Int((Double(boxHeight) * Double(width) / Double(height)).rounded())
        if boxWidth > windowWidth {
            boxWidth = windowWidth
            boxHeight = Int((Double(boxWidth) * Double(height) / Double(width)).rounded())
        }
        boxWidth = max(boxWidth, 1)
        boxHeight = max(boxHeight, 1)
        box = Box(x: (windowWidth - boxWidth) / 2, y: (windowHeight - boxHeight) / 2, width: boxWidth, height: boxHeight)
        if format.rotation == 90 || format.rotation == 270 {
            drawBox = Box(x: box.x + (boxWidth - boxHeight) / 2, y: box.y + (boxHeight - boxWidth) / 2,
                          width: boxHeight, height: boxWidth)
        } else {
            drawBox = box
        }
    }

    /// Whether the stored picture is drawn unscaled on whole pixels, upright or upside down: then
    /// each window pixel is one picture pixel and no filtering is needed. (At 90° or 270° a box
    /// whose sides differ in parity is turned about a half-pixel centre, so those filter.)
    package func isPixelForPixel(format: VideoFormat) -> Bool {
        (format.rotation == 0 || format.rotation == 180) && drawBox.width == format.width && drawBox.height == format.height
    }

    /// The picture's size as shown: the stored size stretched by the pixel aspect ratio (in width,
    /// as players do), then turned.
    package static func displaySize(of format: VideoFormat) -> (width: Int, height: Int) {
        var width = format.width
        if let sar = format.sampleAspectRatio, sar.numerator > 0, sar.denominator > 0, sar != Rational(1, 1) {
            width = max(1, Int((Double(width) * Double(sar.numerator) / Double(sar.denominator)).rounded()))
        }
        return format.rotation == 90 || format.rotation == 270 ? (format.height, width) : (width, format.height)
    }

    /// SDL turns the stored picture after flipping it; the track says to turn, then mirror. Mirroring
    /// after a turn by θ is the same as mirroring first and turning by −θ.
    package static func sdlAngle(rotation: Int, mirrored: Bool) -> Double {
        Double(mirrored ? (360 - rotation) % 360 : rotation)
    }
}
