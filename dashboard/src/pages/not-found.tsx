export function NotFoundPage() {
  return <main><h1>Page not found</h1><p><a href="#/">Back to the overview</a></p></main>;
}
