// One input's part of a `gpuvet report` page: the verdict box it contributes to the top of the
// page and the body further down. Each report kind's renderer (output/html/html_check, html_bench,
// html_trace, html_analyze, html_fleet) returns one; output/html/html_report assembles the page.
#pragma once

#include <string>

#include "output/html/html_page.h"

namespace gpuvet::html {

struct Section {
  std::string id;      // the section element's id: "check", "trace", "analyze2" …
  std::string kind;    // "check", "bench", "trace", "analyze", "fleet"
  std::string title;   // heading, escaped by the page
  std::string source;  // the input's path or the command that produced it (shown, escaped)
  Verdict verdict;
  std::string body;  // trusted markup built from escaped parts
};

}  // namespace gpuvet::html
