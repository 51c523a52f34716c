"""What both jobs share: constants, early parameter checks, the page kit, the summary schema, the headline rule."""
