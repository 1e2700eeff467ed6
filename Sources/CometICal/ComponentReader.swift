import Foundation

/// A component as read from the file, before libical sees it: its own property lines and its
/// children, with the lines they came from.
struct RawComponent {
    let name: String
    let beginLine: Int
    /// Set when a problem was reported inside it: the component is refused, not imported partly.
    var isTainted = false
    var properties: [ContentLine] = []
    var children: [RawComponent] = []
    var endLine: Int = 0

    /// The first value of a property of this component (not of children).
    func value(_ property: String) -> String? {
        properties.first { $0.name == property }?.value
    }

    func line(of property: String) -> Int? {
        properties.first { $0.name == property }?.line
    }

    /// Every physical line it starts on, children included (for the import audit).
    var allLines: [Int] {
        [beginLine, endLine] + properties.map(\.line) + children.flatMap(\.allLines)
    }

    /// The component as libical may read it: subcomponent lines it cannot read (an RFC 9074
    /// `PROXIMITY` in a VALARM) are left out of its view, and kept in the raw component.
    var libicalText: String {
        var copy = self
        copy.children = children.map { child in
            var kept = child
            kept.properties = child.properties.filter { !ComponentPrepass.needsVerbatim($0) }
            return kept
        }
        return copy.text
    }

    /// The component as iCalendar text (unfolded lines, CRLF) for libical.
    var text: String {
        var lines = ["BEGIN:\(name)"]
        append(into: &lines)
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private func append(into lines: inout [String]) {
        lines.append(contentsOf: properties.map(\.text))
        for child in children {
            lines.append("BEGIN:\(child.name)")
            child.append(into: &lines)
        }
        lines.append("END:\(name)")
    }
}

/// What the reader finds, in file order.
enum ReaderEvent {
    /// A VCALENDAR begins (or bare components begin outside one).
    case calendarBegins(line: Int)
    /// A VCALENDAR's own properties so far are known (sent before its first component).
    case calendarProperty(ContentLine)
    /// A complete top-level component inside the calendar (VEVENT, VTODO, VTIMEZONE, …).
    case component(RawComponent)
    case calendarEnds
    case problem(ICalProblem)
    /// Something read in a way the file did not literally say (a broken fold joined, a stray
    /// line ignored): never silent, never fatal.
    case warning(ICalProblem)
}

/// Turns content lines into components, checking the BEGIN/END structure itself so every
/// structural problem has a line: END without BEGIN, mismatched END, a VEVENT inside a VEVENT,
/// a component never closed, text outside any component. Lines that lost their fold's leading
/// space are joined back where that is the only reading, with a warning.
struct ComponentReader {
    private var scanner: ContentLineScanner
    private var stack: [RawComponent] = []
    /// How deep nesting may go (VCALENDAR > VEVENT > VALARM is 3; unknown X- components add a
    /// few), and how many BEGINs past it are being skipped.
    static let maximumDepth = 32
    private var skippedDepth = 0
    private var inCalendar = false
    private var calendarBeginLine = 1
    private var implicitCalendar = false
    /// END:VCALENDAR came while components were open: it either ends the calendar (the file was
    /// cut inside a component) or stands where their END belongs. What follows tells which.
    private var calendarEndIsTentative = false
    /// The components that tentative END:VCALENDAR closed, whose own END may still come.
    private var forcedClosed: Set<String> = []
    private var sawAnything = false
    private var sawCalendar = false
    /// The calendar's last property, held back so a broken fold can still be joined to it.
    private var heldCalendarProperty: ContentLine?
    /// Lines after the last END:VCALENDAR that belong to nothing, reported once per run.
    private var strayRun: (first: Int, last: Int, text: String)?
    private var queue: [ReaderEvent] = []
    private var done = false

    /// Components that may not contain themselves or each other.
    static let itemComponents: Set<String> = ["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VAVAILABILITY"]

    init(scanner: ContentLineScanner) {
        self.scanner = scanner
    }

    var bytesRead: Int { scanner.bytesRead }

    mutating func next() -> ReaderEvent? {
        while head == queue.count, !done {
            queue.removeAll(keepingCapacity: true)
            head = 0
            step()
        }
        guard head < queue.count else { return nil }
        defer { head += 1 }
        return queue[head]
    }

    private var head = 0

    private mutating func step() {
        guard let result = scanner.next() else {
            settleLastLine()
            flushCalendarProperty()
            flushStrayRun()
            finish()
            return
        }
        let line: ContentLine
        switch result {
        case .failure(let problem):
            queue.append(.problem(problem))
            taintInnermostItem()
            return
        case .success(let found):
            line = found
        }
        sawAnything = true
        if !(stack.isEmpty && !inCalendar), joinBrokenFold(line) { return }
        settleLastLine()
        let name = line.name
        if name == "BEGIN", line.startsProperty {
            flushCalendarProperty()
            flushStrayRun()
            // Nesting past any real file's (an alarm in an event in a calendar is 3) is refused,
            // and its components are skipped by count: the recursion over children stays shallow.
            if stack.count >= ComponentReader.maximumDepth || skippedDepth > 0 {
                if skippedDepth == 0 {
                    queue.append(.problem(ICalProblem(line: line.line, uid: stack.first(where: { $0.value("UID") != nil })?.value("UID"),
                                                      message: "components are nested more than \(ComponentReader.maximumDepth) deep; no calendar program writes that, so the item is left out")))
                    taintInnermostItem()
                }
                skippedDepth += 1
                return
            }
            begin(line.value.trimmedBlanks.uppercased(), at: line.line)
        } else if name == "END", line.startsProperty {
            flushCalendarProperty()
            flushStrayRun()
            if skippedDepth > 0 {
                skippedDepth -= 1
                return
            }
            end(line.value.trimmedBlanks.uppercased(), at: line.line)
        } else if !stack.isEmpty || (inCalendar && !calendarEndIsTentative) {
            if !line.startsProperty, line.valueSeparator != nil {
                queue.append(.problem(ICalProblem(line: line.line, uid: stack.last?.value("UID"),
                                                  message: "'\(line.text.prefix(40))' is not a property: a property starts with a name of letters, digits and dashes, then ':' or ';'")))
                taintInnermostItem()
                return
            }
            calendarEndIsTentative = false
            if var top = stack.popLast() {
                top.properties.append(line)
                stack.append(top)
            } else {
                flushCalendarProperty()
                heldCalendarProperty = line
            }
        } else if sawCalendar {
            // After END:VCALENDAR (a comment, a signature): nothing to read, so ignored and said.
            if let run = strayRun {
                strayRun = (run.first, line.line, run.text)
            } else {
                strayRun = (line.line, line.line, String(line.text.prefix(40)))
            }
        } else {
            queue.append(.problem(ICalProblem(line: line.line, uid: nil, message: "'\(line.text.prefix(40))' is outside any component; an iCalendar file starts with BEGIN:VCALENDAR")))
            // One such complaint is enough for a file that is not iCalendar at all.
            while case .success(let skipped)? = scanner.next() {
                if skipped.name == "BEGIN" {
                    begin(skipped.value.trimmedBlanks.uppercased(), at: skipped.line)
                    return
                }
            }
        }
    }

    // MARK: Broken folds

    /// The property line a continuation would belong to: the innermost component's last one, or
    /// the calendar's held one.
    private var lastLine: ContentLine? {
        if let top = stack.last { return top.properties.last }
        return heldCalendarProperty
    }

    private mutating func replaceLastLine(_ line: ContentLine) {
        if var top = stack.popLast() {
            top.properties[top.properties.count - 1] = line
            stack.append(top)
        } else {
            heldCalendarProperty = line
        }
    }

    /// Joins a line that cannot start a property to the one before, when that is a fold that
    /// lost its leading space: the line before has no value separator yet (the fold fell inside
    /// its parameters), or it is text and this line has no property name. The fold's space was
    /// its marker, so the pieces join with nothing between them.
    private mutating func joinBrokenFold(_ line: ContentLine) -> Bool {
        guard !line.hasPropertyName, let previous = lastLine else { return false }
        let unfinished = previous.valueSeparator == nil
        guard unfinished || ComponentReader.isText(previous) else { return false }
        replaceLastLine(ContentLine(text: previous.text + line.text, line: previous.line))
        queue.append(.warning(ICalProblem(line: line.line, uid: stack.last?.value("UID"),
                                          message: "this line does not start a property, so it is read as the rest of \(previous.name) on line \(previous.line) (a folded line that lost its leading space)")))
        return true
    }

    /// A property line still without ':' when the next line does not continue it is refused.
    private mutating func settleLastLine() {
        guard let last = lastLine, last.valueSeparator == nil else { return }
        if var top = stack.popLast() {
            top.properties.removeLast()
            stack.append(top)
        } else {
            heldCalendarProperty = nil
        }
        let unclosedQuote = last.text.filter { $0 == "\"" }.count % 2 == 1
        queue.append(.problem(ICalProblem(line: last.line, uid: stack.last?.value("UID"),
                                          message: "'\(last.text.prefix(40))' has no colon" + (unclosedQuote ? " outside quotes: a parameter's quote is never closed" : ": a property needs ':' between its name and its value"))))
        taintInnermostItem()
    }

    /// Properties whose value is TEXT (RFC 5545 §3.3.11), where a lost fold is all that a line
    /// without a name can be: the standard text properties, and x-names without another VALUE.
    static func isText(_ line: ContentLine) -> Bool {
        let name = line.name
        if textProperties.contains(name) { return true }
        if name.hasPrefix("X-") { return line.parameter("VALUE").map { $0.uppercased() == "TEXT" } ?? true }
        return false
    }

    static let textProperties: Set<String> = ["SUMMARY", "DESCRIPTION", "LOCATION", "COMMENT", "CATEGORIES", "RESOURCES", "CONTACT",
                                              "TZNAME", "NAME", "REQUEST-STATUS"]

    private mutating func flushCalendarProperty() {
        if let held = heldCalendarProperty {
            queue.append(.calendarProperty(held))
            heldCalendarProperty = nil
        }
    }

    private mutating func flushStrayRun() {
        guard let run = strayRun else { return }
        strayRun = nil
        let lines = run.first == run.last ? "line \(run.first)" : "lines \(run.first)–\(run.last)"
        queue.append(.warning(ICalProblem(line: run.first, uid: nil,
                                          message: "'\(run.text)' (\(lines)) comes after END:VCALENDAR, outside any component; ignored")))
    }

    // MARK: Structure

    private mutating func begin(_ component: String, at line: Int) {
        if component == "VCALENDAR", stack.isEmpty {
            if implicitCalendar {
                queue.append(.calendarEnds)
                implicitCalendar = false
            }
            if inCalendar {
                if !calendarEndIsTentative {
                    queue.append(.problem(ICalProblem(line: line, uid: nil, message: "BEGIN:VCALENDAR inside a VCALENDAR that was never closed")))
                }
                // Either way the earlier calendar ends here: nothing of it leaks into this one.
                queue.append(.calendarEnds)
            }
            calendarEndIsTentative = false
            inCalendar = true
            sawCalendar = true
            calendarBeginLine = line
            queue.append(.calendarBegins(line: line))
            return
        }
        calendarEndIsTentative = false
        if !inCalendar, stack.isEmpty {
            // Bare components without VCALENDAR around them: read them as one calendar.
            inCalendar = true
            implicitCalendar = true
            sawCalendar = true
            queue.append(.calendarBegins(line: line))
            queue.append(.warning(ICalProblem(line: line, uid: nil, message: "BEGIN:\(component) without BEGIN:VCALENDAR around it (as pasted from an email); the components are read as one calendar")))
        }
        if ComponentReader.itemComponents.contains(component), stack.contains(where: { ComponentReader.itemComponents.contains($0.name) }) {
            let outer = stack.last { ComponentReader.itemComponents.contains($0.name) }
            queue.append(.problem(ICalProblem(line: line, uid: outer.flatMap { $0.value("UID") },
                                              message: "BEGIN:\(component) inside \(outer?.name ?? "a component") (started on line \(outer?.beginLine ?? 0)); components of this kind cannot be nested, so the outer one is refused with everything in it")))
            taintInnermostItem()
        }
        stack.append(RawComponent(name: component, beginLine: line))
    }

    /// The innermost item component (VEVENT, …) open now is refused.
    private mutating func taintInnermostItem() {
        if let index = stack.lastIndex(where: { ComponentReader.itemComponents.contains($0.name) }) { stack[index].isTainted = true }
    }

    private mutating func end(_ component: String, at line: Int) {
        if component == "VCALENDAR", !stack.isEmpty, inCalendar {
            // END:VCALENDAR while components are open: the fault is on this line either way (the
            // file was cut inside them, or this END belongs to them), so it is reported here.
            // The calendar ends for now; another component or END:VCALENDAR after it means it
            // stood for the missing END, and the calendar goes on.
            let open = stack.map { "BEGIN:\($0.name) (line \($0.beginLine))" }.joined(separator: ", ")
            queue.append(.problem(ICalProblem(line: line, uid: stack.first { ComponentReader.itemComponents.contains($0.name) }?.value("UID") ?? stack.first?.value("UID"),
                                              message: "END:VCALENDAR while \(open) is still open: it is never closed, so it is refused (if this line should be END:\(stack.last?.name ?? ""), correct it)")))
            forcedClosed = Set(stack.map(\.name))
            stack.removeAll()
            calendarEndIsTentative = true
            return
        }
        if component == "VCALENDAR", stack.isEmpty {
            guard inCalendar else {
                queue.append(.problem(ICalProblem(line: line, uid: nil, message: "END:VCALENDAR without BEGIN:VCALENDAR")))
                return
            }
            inCalendar = false
            implicitCalendar = false
            calendarEndIsTentative = false
            queue.append(.calendarEnds)
            return
        }
        if stack.isEmpty, forcedClosed.remove(component) != nil {
            // The END of a component already refused at the END:VCALENDAR that stood in its way
            // (the two lines were swapped): reported there, not again.
            return
        }
        calendarEndIsTentative = false
        forcedClosed.removeAll()
        guard var top = stack.popLast() else {
            queue.append(.problem(ICalProblem(line: line, uid: nil, message: "END:\(component) without a matching BEGIN:\(component)")))
            return
        }
        guard top.name == component else {
            queue.append(.problem(ICalProblem(line: line, uid: top.value("UID"),
                                              message: "END:\(component) does not close BEGIN:\(top.name) (line \(top.beginLine)); components must end in the order they begin")))
            // Keep the structure: treat it as closing the innermost component, which is refused.
            top.endLine = line
            if ComponentReader.itemComponents.contains(top.name) { top.isTainted = true } else { taintInnermostItem() }
            attach(top)
            return
        }
        top.endLine = line
        attach(top)
    }

    private mutating func attach(_ component: RawComponent) {
        if var parent = stack.popLast() {
            // A nested item component was already reported; drop it from the parent.
            if !(ComponentReader.itemComponents.contains(component.name) && ComponentReader.itemComponents.contains(parent.name)) {
                parent.children.append(component)
            }
            if component.isTainted, ComponentReader.itemComponents.contains(parent.name) { parent.isTainted = true }
            stack.append(parent)
        } else if !component.isTainted {
            queue.append(.component(component))
        }
    }

    private mutating func finish() {
        done = true
        for open in stack.reversed() {
            queue.append(.problem(ICalProblem(line: open.beginLine, uid: open.value("UID"),
                                              message: "BEGIN:\(open.name) is never closed (no END:\(open.name) before the end of the file); the file may be cut off")))
        }
        stack.removeAll()
        if inCalendar, !implicitCalendar, !calendarEndIsTentative {
            queue.append(.problem(ICalProblem(line: calendarBeginLine, uid: nil, message: "BEGIN:VCALENDAR is never closed (no END:VCALENDAR); the file may be cut off")))
        }
        if inCalendar { queue.append(.calendarEnds) }
        if !sawAnything {
            queue.append(.problem(ICalProblem(line: 1, uid: nil, message: "the file is empty; an iCalendar file starts with BEGIN:VCALENDAR")))
        }
    }
}
