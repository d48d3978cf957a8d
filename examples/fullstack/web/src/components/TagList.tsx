import { useEffect, useState } from 'react';

export function TagList() {
  const [tags, setTags] = useState<string[]>([]);
  useEffect(() => {
    fetch('/api/tags')
      .then((res) => res.json())
      .then((body) => setTags(body.tags));
  }, []);
  return (
    <ul className="tags">
      {tags.map((t) => (
        <li key={t}>{t}</li>
      ))}
    </ul>
  );
}
