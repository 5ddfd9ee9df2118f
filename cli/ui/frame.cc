// BuildFrame (see frame.h): the layout of `agtmux ui`. A pane row is the
// cells every human view shows (cli/table.h PaneCellsOf) in fixed columns
// that fit 80 terminal columns, DETAIL taking what is left; lines are cut
// by display width, so wide glyphs never push a line past the edge.
#include "cli/ui/frame.h"

#include <algorithm>

#include "cli/table.h"
#include "cli/ui/ansi_line.h"

namespace agt::cli::ui {
namespace {

/// `s` cut or padded to exactly `w` columns.
std::string Fit(const std::string& s, int w) {
  if (w <= 0) return "";
  std::string out = TruncateToWidth(s, w);
  int used = DisplayWidth(out);
  if (used < w) out.append(static_cast<size_t>(w - used), ' ');
  return out;
}

/// The ui style of a state, from the one colour rule of the tables.
Style StateStyle(const std::string& state) {
  const std::string sgr = StateColor(state);
  if (sgr == "31") return Style::kRed;
  if (sgr == "33") return Style::kYellow;
  if (sgr == "32") return Style::kGreen;
  if (sgr == "36") return Style::kCyan;
  if (sgr == "2") return Style::kDim;
  return Style::kPlain;
}

/// Replaces what a terminal would act on (control bytes, tabs) in
/// captured text, so a preview line is as wide as it looks.
std::string Printable(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\t') {
      out += "    ";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

/// Cuts a line's segments so that the whole fits `cols`.
FrameLine Clip(FrameLine line, int cols) {
  FrameLine out;
  int left = cols;
  for (auto& seg : line.segments) {
    if (left <= 0) break;
    int w = DisplayWidth(seg.text);
    if (w > left) {
      seg.text = TruncateToWidth(seg.text, left);
      w = DisplayWidth(seg.text);
    }
    left -= w;
    out.segments.push_back(std::move(seg));
  }
  return out;
}

FrameLine Line(std::string text, Style style = Style::kPlain) {
  FrameLine l;
  l.segments.push_back({std::move(text), style});
  return l;
}

// The row's columns: marker 2, STATE 16, SOURCE 4, AGENT 7, AGE 6, WINDOW 8,
// PANE 5, then DETAIL (with one space between columns).
constexpr int kState = 16, kSource = 4, kAgent = 7, kAge = 6, kWindow = 8, kPane = 5;

FrameLine PaneLine(const PaneRow& row, bool selected, int cols, core::TimeNs now) {
  PaneCells c = PaneCellsOf(*row.item, now);
  FrameLine l;
  Style base = selected ? Style::kSelected : Style::kPlain;
  l.segments.push_back({selected ? "> " : "  ", base});
  l.segments.push_back({Fit(c.state, kState), selected ? Style::kSelected : StateStyle(c.state)});
  std::string mid = " " + Fit(c.source, kSource) + " " + Fit(c.agent, kAgent) + " " + Fit(c.age, kAge) + " " +
                    Fit(c.window, kWindow) + " " + Fit(c.pane, kPane) + " ";
  l.segments.push_back({mid, base});
  const int used = 2 + kState + DisplayWidth(mid);
  std::string detail = Printable(c.detail);
  if (!row.choices.empty() && row.waiting()) {
    std::string opts;
    for (size_t i = 0; i < row.choices.size() && i < 9; ++i)
      opts += (opts.empty() ? "" : " ") + std::to_string(i + 1) + "." + row.choices[i];
    detail = detail.empty() ? opts : detail + " | " + opts;
  }
  // The selected row is highlighted across the whole width.
  l.segments.push_back({selected ? Fit(detail, cols - used) : detail, base});
  return l;
}

std::string FilterText(const Filters& f) {
  std::string out;
  if (f.waiting_only) out += " [waiting only]";
  if (!f.agent.empty()) out += " [agent " + f.agent + "]";
  if (!f.target.empty()) out += " [target " + f.target + "]";
  if (!f.text.empty()) out += " [/" + f.text + "]";
  return out;
}

constexpr const char* kKeys =
    "j/k move  Enter jump  a/d yes/no  p prompt  / w A T filter  ? help  q quit";

}  // namespace

const std::vector<std::string>& HelpLines() {
  static const std::vector<std::string> lines = {
      "agtmux ui: every agent pane, live",
      "",
      "  j, Down / k, Up   move (PgDn/PgUp by 10, g/G first/last)",
      "  Enter             jump to the pane (switch this tmux client, or attach)",
      "  a or y            approve: answer yes to what the pane waits on",
      "  d or n            deny: answer no",
      "  1-9               pick that option of the menu",
      "  p or i            type a prompt: Enter sends it and waits, Esc cancels",
      "  r                 refresh the preview",
      "  w                 filter: waiting panes only (again: all)",
      "  A                 filter: next agent (cycles; after the last: all)",
      "  T                 filter: next target (cycles; after the last: all)",
      "  /                 filter by typed words (agent, target, session, state,",
      "                    text; agent:x target:x ...): Enter keeps, Esc clears",
      "  x                 clear the filters",
      "  ?                 this help (any key closes it)",
      "  q, Esc            quit (Esc first clears a typed filter)",
      "",
      "Answers go through the guarded respond and send (docs/actions.md):",
      "nothing is typed into a pane whose state moved since it was shown.",
  };
  return lines;
}

int LineWidth(const FrameLine& line) {
  int w = 0;
  for (const auto& s : line.segments) w += DisplayWidth(s.text);
  return w;
}

std::string LineText(const FrameLine& line) {
  std::string out;
  for (const auto& s : line.segments) out += s.text;
  return out;
}

std::vector<FrameLine> BuildFrame(Model* model, int cols, int rows, core::TimeNs now) {
  std::vector<FrameLine> out;
  if (rows < 1 || cols < 1) return out;
  // Title: the summary, the filters, and the daemon connection.
  FrameLine title;
  title.segments.push_back({"agtmux ", Style::kTitle});
  switch (model->connection()) {
    case Connection::kConnecting: title.segments.push_back({"connecting to agtmuxd...", Style::kDim}); break;
    case Connection::kNotAnswering:
      title.segments.push_back({"daemon not answering (reconnecting)", Style::kError});
      break;
    case Connection::kLive: {
      std::string shown = model->rows().size() == static_cast<size_t>(model->items().items().size())
                              ? ""
                              : std::to_string(model->rows().size()) + " shown of ";
      title.segments.push_back({shown + SummaryLine(model->items().summary()), Style::kPlain});
      break;
    }
  }
  title.segments.push_back({FilterText(model->filters()), Style::kYellow});
  out.push_back(title);

  // Below: list, separator, preview, status, keys. The preview gets what
  // the list does not need of 40 %, and none on a very short terminal.
  const int body = std::max(0, rows - 3);  // title, status, keys
  int list_h = body, preview_h = 0;
  if (body >= 10) {
    preview_h = body * 2 / 5;
    list_h = body - preview_h;
    const int want = std::max(3, static_cast<int>(model->lines().size()));
    if (want < list_h) {
      preview_h += list_h - want;
      list_h = want;
    }
    preview_h -= 1;  // the separator
  }

  if (model->help()) {
    const auto& help = HelpLines();
    for (int i = 0; i < list_h + (preview_h > 0 ? preview_h + 1 : 0); ++i)
      out.push_back(i < static_cast<int>(help.size()) ? Line(help[static_cast<size_t>(i)]) : FrameLine{});
  } else {
    const auto& lines = model->lines();
    const int sel = model->selected_line();
    int& scroll = model->scroll;
    if (sel >= 0 && sel < scroll) scroll = sel;
    if (sel >= scroll + list_h) scroll = sel - list_h + 1;
    // The header of the selected pane's group stays in view when it fits.
    if (sel > 0 && scroll == sel && lines[static_cast<size_t>(sel - 1)].header && list_h > 1) scroll = sel - 1;
    scroll = std::clamp(scroll, 0, std::max(0, static_cast<int>(lines.size()) - list_h));
    for (int i = 0; i < list_h; ++i) {
      const int li = scroll + i;
      if (li >= static_cast<int>(lines.size())) {
        if (lines.empty() && i == 0 && model->connection() == Connection::kLive)
          out.push_back(Line(model->filters().any()
                                 ? "  no agent pane matches the filters (x clears them)"
                                 : "  no agent panes (start one with `agtmux wrap <agent>`)",
                             Style::kDim));
        else
          out.push_back(FrameLine{});
        continue;
      }
      const ListLine& l = lines[static_cast<size_t>(li)];
      if (l.header) {
        out.push_back(Line(l.label, Style::kHeader));
      } else {
        out.push_back(PaneLine(model->rows()[static_cast<size_t>(l.row)], li == sel, cols, now));
      }
    }
    if (preview_h > 0) {
      const PaneRow* r = model->Selected();
      std::string label = "── " + (r ? r->ref : std::string("no pane selected")) + " ";
      for (int w = DisplayWidth(label); w < cols; ++w) label += "─";
      out.push_back(Line(label, Style::kDim));
      // The last lines of the captured screen, trailing blank lines dropped.
      std::vector<FrameLine> text;  // in the pane's own colours
      if (r && model->preview_key() == r->key) {
        std::string p = model->preview();
        size_t start = 0;
        while (start <= p.size()) {
          size_t nl = p.find('\n', start);
          text.push_back(AnsiLine(std::string_view(p).substr(start, nl == std::string::npos ? std::string::npos : nl - start)));
          if (nl == std::string::npos) break;
          start = nl + 1;
        }
        while (!text.empty() && LineText(text.back()).find_first_not_of(' ') == std::string::npos) text.pop_back();
      }
      const int first = std::max(0, static_cast<int>(text.size()) - preview_h);
      for (int i = 0; i < preview_h; ++i) {
        const int ti = first + i;
        out.push_back(ti < static_cast<int>(text.size()) ? text[static_cast<size_t>(ti)] : FrameLine{});
      }
    }
  }

  if (model->filtering()) {
    FrameLine p;
    p.segments.push_back({"filter> ", Style::kPrompt});
    p.segments.push_back({model->filters().text + "_", Style::kPlain});
    out.push_back(p);
  } else if (model->prompting()) {
    const PaneRow* r = model->Selected();
    FrameLine p;
    p.segments.push_back({"prompt for " + (r ? r->ref : std::string("?")) + "> ", Style::kPrompt});
    p.segments.push_back({model->prompt_text() + "_", Style::kPlain});
    // Keep the end of a long prompt in view.
    if (LineWidth(p) > cols) {
      std::string t = model->prompt_text();
      while (!t.empty() && DisplayWidth(p.segments[0].text) + DisplayWidth(t) + 2 > cols) {
        t.erase(0, 1);
        while (!t.empty() && (static_cast<unsigned char>(t[0]) & 0xC0) == 0x80) t.erase(0, 1);
      }
      p.segments[1].text = "…" + t + "_";
    }
    out.push_back(p);
  } else {
    out.push_back(Line(model->status(), model->status_error() ? Style::kError : Style::kPlain));
  }
  out.push_back(Line(model->filtering()   ? "Enter keep the filter  Esc clear it"
                     : model->prompting() ? "Enter send  Esc cancel"
                                          : kKeys,
                     Style::kDim));
  while (static_cast<int>(out.size()) > rows) out.erase(out.begin() + 1);  // tiny terminals: keep title + bottom
  for (auto& l : out) l = Clip(std::move(l), cols);
  return out;
}

}  // namespace agt::cli::ui
