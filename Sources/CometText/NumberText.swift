/// Counts as people read them: `6,272`. Fixed, not the locale's, so dialogs, golden output and
/// scripts see the same text everywhere.
public enum NumberText {
    /// The number with a comma between each group of three digits.
    public static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return (number < 0 ? "-" : "") + text
    }
}
