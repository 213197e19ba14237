import HeraldCore
import HeraldJSON
import Testing

/// A device's text lengths count code points, as the OpenAPI document's maxLength does: a value
/// the document refuses is refused, whatever a reader sees as one letter.
@Suite struct DeviceLengthTests {
    static func issues(property value: String) -> [String] {
        switch Device.parse(["platform": "android", "properties": ["name": .string(value)]], token: "length-token") {
        case .success: []
        case .failure(let failure): failure.errors.map { "\($0.path) \($0.code)" }
        }
    }

    @Test func aPropertyValueIsCountedInCodePoints() {
        // "मनीष منش" is 8 code points, though a reader sees fewer letters.
        let mixed = "मनीष منش"
        #expect(mixed.unicodeScalars.count == 8 && mixed.count < 8)
        #expect(Self.issues(property: mixed + String(repeating: "*", count: 492)).isEmpty, "500 code points")
        #expect(Self.issues(property: mixed + String(repeating: "*", count: 493)) == ["properties.name too_long"], "501 code points")
    }
}
